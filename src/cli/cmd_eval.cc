// archpatch eval: evaluates #if conditions given on the command line or in a file, per arch, in
// three-valued logic. A malformed expression is reported with a caret and the rest still print.
#include <optional>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "arch/arch.h"
#include "cli/command.h"
#include "cli/options.h"
#include "cuda/condition.h"
#include "cuda/expression_file.h"
#include "cuda/macro_env.h"
#include "util/result.h"
#include "report/json_text.h"

namespace archpatch::cli {
namespace {

using Expression = cuda::SourcedExpression;

std::vector<Expression> FromArgs(const std::vector<std::string>& args) {
  std::vector<Expression> out;
  for (size_t i = 0; i < args.size(); ++i) out.push_back({args[i], fmt::format("<arg {}>", i + 1), 1});
  return out;
}

std::vector<Expression> FromFile(const std::string& path) {
  Result<std::vector<Expression>> exprs = cuda::ReadExpressionFile(path);
  if (!exprs) throw UsageError(fmt::format("cannot read expression file: {}", exprs.error().str()));
  return std::move(*exprs);
}

// "archpatch: error: FILE:LINE:COL: message", then the offending line and a caret under COL.
void PrintParseError(const Expression& e, const Error& error) {
  const int line = e.line + error.where.line - 1;
  const int column = error.where.column + (error.where.line == 1 ? e.column_offset : 0);
  fmt::print(stderr, "archpatch: error: {}:{}:{}: {}\n", e.origin, line, column, error.message);
  std::istringstream lines(e.text);
  std::string text_line;
  for (int i = 0; i < error.where.line && std::getline(lines, text_line);) ++i;
  std::string caret;
  for (int i = 0; i + 1 < error.where.column && i < static_cast<int>(text_line.size()); ++i) {
    caret += text_line[i] == '\t' ? '\t' : ' ';
  }
  fmt::print(stderr, "  {}\n  {}^\n", text_line, caret);
}

std::vector<arch::Arch> ArchesOption(const std::string& value) {
  if (value == "all") return arch::AllArches();
  Result<std::vector<arch::Arch>> arches = arch::ParseArchList(value);
  if (!arches) throw UsageError(fmt::format("--arch: {}", arches.error().message));
  return *arches;
}

cuda::MacroEnv EnvOptions(const po::variables_map& vars) {
  cuda::MacroEnv env;
  env.undef_unknown = vars.count("undef-unknown") > 0;
  for (const auto& [option, define] : {std::pair{"define", true}, std::pair{"undefine", false}}) {
    if (!vars.count(option)) continue;
    for (const std::string& flag : vars[option].as<std::vector<std::string>>()) {
      Status s = cuda::AddMacroFlag(env, flag, define);
      if (!s) throw UsageError(fmt::format("{}: {}", define ? "-D" : "-U", s.error().message));
    }
  }
  return env;
}

}  // namespace

int RunEval(const Context&, const std::vector<std::string>& args) {
  po::options_description desc("options");
  desc.add_options()("arch", po::value<std::string>(), "arches to evaluate for: sm_120,sm_121 or 'all'")(
      "define,D", po::value<std::vector<std::string>>(), "NAME[=VAL]: the macro is defined (to 1 or VAL)")(
      "undefine,U", po::value<std::vector<std::string>>(), "NAME: the macro is undefined")(
      "undef-unknown", "treat every macro not fixed by -D/-U or the arch as undefined, as the compiler does")(
      "json", "one JSON object per expression per line")("expr-file", po::value<std::string>(),
                                                         "read expressions from FILE, one per line")(
      "expr", po::value<std::vector<std::string>>(), "expressions (after '--' when one starts with '-')");
  const char* synopsis =
      "--arch ARCH[,ARCH...] [-D NAME[=VAL]]... [-U NAME]... [--undef-unknown] [--json] "
      "(EXPR... | --expr-file FILE)";
  ParsedOptions opts = ParseOptions("eval", desc, args, "expr");
  if (opts.help) {
    PrintCommandHelp("eval", synopsis, desc);
    return kExitOk;
  }
  const po::variables_map& vars = opts.vars;
  RefuseTogether(vars, "expr", "expr-file");
  if (!vars.count("arch")) throw UsageError("eval: '--arch' is required (e.g. --arch sm_120,sm_121 or --arch all)");
  if (!vars.count("expr") && !vars.count("expr-file")) throw UsageError("eval: no expression given");
  const std::vector<arch::Arch> arches = ArchesOption(vars["arch"].as<std::string>());
  const cuda::MacroEnv env = EnvOptions(vars);
  const std::vector<Expression> exprs = vars.count("expr-file") ? FromFile(vars["expr-file"].as<std::string>())
                                                                : FromArgs(vars["expr"].as<std::vector<std::string>>());
  const bool json = vars.count("json") > 0;
  int exit_code = kExitOk;
  for (const Expression& e : exprs) {
    Result<cuda::Condition> c = cuda::ParseCondition(e.text);
    if (!c) {
      PrintParseError(e, c.error());
      if (json) {
        const Error& error = c.error();
        const int column = error.where.column + (error.where.line == 1 ? e.column_offset : 0);
        const nlohmann::ordered_json where = {{"file", e.origin},
                                              {"line", e.line + error.where.line - 1},
                                              {"column", column},
                                              {"message", error.message}};
        fmt::print("{}\n", report::DumpText(nlohmann::ordered_json{{"expr", e.text}, {"error", where}}));
      }
      exit_code = kExitUsage;
      continue;
    }
    const std::vector<Tri> verdicts = cuda::EvaluatePerArch(*c, arches, env);
    nlohmann::ordered_json verdict = nlohmann::ordered_json::object();
    std::string human;
    for (size_t i = 0; i < arches.size(); ++i) {
      verdict[arches[i].name()] = TriName(verdicts[i]);
      human += fmt::format(" {}={}", arches[i].name(), TriName(verdicts[i]));
    }
    if (json) {
      fmt::print("{}\n", report::DumpText(nlohmann::ordered_json{{"expr", e.text}, {"verdict", verdict}}));
    } else {
      fmt::print("{}:{}\n", e.text, human);
    }
  }
  return exit_code;
}

}  // namespace archpatch::cli
