// archpatch's entry point: global flags, the subcommand table, and the one place where fatal
// errors become "archpatch: error: ..." and an exit code.
#include <algorithm>
#include <cstring>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "cli/command.h"
#include "cli/heap.h"
#include "util/data_dir.h"
#include "util/edit_distance.h"
#include "util/result.h"

namespace archpatch::cli {
namespace {

constexpr Command kCommands[] = {
    {"audit", "list the gates that exclude an arch (CUDA/C++, Python, binaries)", RunAudit},
    {"eval", "evaluate preprocessor conditions per arch", RunEval},
    {"arches", "list the arch table and the macros each defines", RunArches},
    {"apply", "rewrite gates from rules, atomically, with a manifest", RunApply},
    {"revert", "undo applied rules byte for byte", RunRevert},
    {"status", "show what is applied and whether files are as archpatch left them", RunStatus},
    {"verify", "check installed files against RECORD, or prove an edit with the compiler", RunVerify},
    {"rules", "list, show, check and test rules", RunRules},
    {"suggest", "draft rules and fixtures from the audit's widen-safe root causes", RunSuggest},
    {"caches", "list or clear JIT caches", RunCaches},
};

void PrintUsage(std::FILE* out) {
  fmt::print(out, "usage: archpatch [-v] [--version] COMMAND [ARGS...]\n\ncommands:\n");
  for (const Command& c : kCommands) fmt::print(out, "  {:<8} {}\n", c.name, c.summary);
  fmt::print(out, "\n'archpatch COMMAND --help' describes each command.\n");
}

// The version and where the data (rules, caches.yaml, features.yaml) was found, or why not.
void PrintVersion() {
  fmt::print("archpatch {}\n", ARCHPATCH_VERSION);
  const Result<DataDir>& data = FindDataDir();
  if (data) {
    fmt::print("data: {} ({})\n", data->path.string(), data->found_by);
  } else {
    fmt::print("data: not found: {}\n", data.error().message);
  }
}

const Command* FindCommand(std::string_view name) {
  for (const Command& c : kCommands) {
    if (name == c.name) return &c;
  }
  return nullptr;
}

const Command* ClosestCommand(std::string_view name) {
  const Command* best = nullptr;
  size_t best_distance = 3;  // suggest only near misses
  for (const Command& c : kCommands) {
    size_t d = EditDistance(name, c.name);
    if (d < best_distance) best = &c, best_distance = d;
  }
  return best;
}

void SetUpLogging(int verbosity) {
  // Logs go to stderr so stdout stays clean for results and --json.
  spdlog::set_default_logger(spdlog::stderr_color_st("archpatch"));
  spdlog::set_pattern("archpatch: %l: %v");
  spdlog::set_level(verbosity >= 2 ? spdlog::level::debug : verbosity == 1 ? spdlog::level::info : spdlog::level::warn);
}

int Main(int argc, char** argv) {
  // A command name is always the command, whatever file of that name the working folder holds.
  if (argc == 2 && !FindCommand(argv[1]) && IsAnsibleModuleCall(argc, argv)) return RunAnsibleModule(argv[1]);
  Context ctx;
  int i = 1;
  for (; i < argc && argv[i][0] == '-'; ++i) {
    std::string_view flag = argv[i];
    if (flag == "-v" || flag == "--verbose") {
      ++ctx.verbosity;
    } else if (flag == "-vv") {
      ctx.verbosity += 2;
    } else if (flag == "--version") {
      PrintVersion();
      return kExitOk;
    } else if (flag == "-h" || flag == "--help") {
      PrintUsage(stdout);
      return kExitOk;
    } else {
      throw UsageError(fmt::format("unknown option '{}' (options go after the command)", flag));
    }
  }
  if (i == argc) {
    PrintUsage(stderr);
    return kExitUsage;
  }
  std::string name = argv[i];
  // -v is also accepted after the command, where users tend to type it, as often as before it
  // (`audit -vv`, `audit -v -v`): counted here and not passed on, since each command's parser
  // takes its switch once (`audit -vv` was "option '--verbose' cannot be specified more than
  // once"). After `--`, every argument is the command's.
  std::vector<std::string> args;
  bool operands = false;
  for (int a = i + 1; a < argc; ++a) {
    const std::string_view arg = argv[a];
    operands = operands || arg == "--";
    if (!operands && (arg == "-v" || arg == "--verbose")) {
      ++ctx.verbosity;
    } else if (!operands && arg == "-vv") {
      ctx.verbosity += 2;
    } else {
      args.emplace_back(arg);
    }
  }
  SetUpLogging(ctx.verbosity);
  const Command* command = FindCommand(name);
  if (!command) {
    const Command* guess = ClosestCommand(name);
    throw UsageError(guess ? fmt::format("unknown command '{}', did you mean '{}'?", name, guess->name)
                           : fmt::format("unknown command '{}' (see 'archpatch --help')", name));
  }
  return command->run(ctx, args);
}

}  // namespace
}  // namespace archpatch::cli

int main(int argc, char** argv) {
  archpatch::cli::UseHugePagesForTheHeap();
  try {
    return archpatch::cli::Main(argc, argv);
  } catch (const archpatch::Fatal& e) {
    fmt::print(stderr, "archpatch: error: {}\n", e.what());
    return e.exit_code();
  } catch (const std::exception& e) {
    fmt::print(stderr, "archpatch: error: {}\n", e.what());
    return archpatch::cli::kExitRefused;
  }
}
