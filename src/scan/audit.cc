#include "scan/audit.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <cstdlib>
#include <mutex>
#include <set>
#include <thread>

#include <spdlog/spdlog.h>

#include "scan/audit_run.h"
#include "scan/directive_store.h"
#include "scan/package_macros.h"
#include "scan/walk.h"
#include "util/process_end.h"
#include "util/worker_pool.h"

namespace archpatch::scan {
namespace {

// Milliseconds between laps, for the debug log.
class Stopwatch {
 public:
  int64_t Lap() {
    const auto now = std::chrono::steady_clock::now();
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now - last_).count();
    last_ = now;
    return ms;
  }

 private:
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

// The package's macros: names a package #defines under arch conditions, with their state per arch
// (cuda::MacroEnv::per_arch), from the definitions kRead found. A round can resolve macros defined
// from other package macros (cutlass/arch/config.h -> cute/arch/config.hpp -> users); three at
// most, each reading again only the files whose directives may name one whose state the round
// changed (a file that names none defines as it did in the round before).
struct PackageMacros {
  cuda::MacroEnv env;                          // options.env with the per-arch states
  std::set<std::string, std::less<>> applied;  // their names
};

PackageMacros SettlePackageMacros(const AuditOptions& options, const std::vector<std::string>& files,
                                  SharedByRounds shared, DefinitionsByFile definitions,
                                  const std::vector<arch::Arch>& arches) {
  constexpr int kRounds = 3;
  PackageMacros out{options.env, {}};
  for (int round = 0; round < kRounds; ++round) {
    PerArchMacros macros = ResolvePackageMacros(definitions, arches);
    std::set<std::string, std::less<>> fresh;
    for (const auto& [name, states] : macros) {
      if (!out.applied.count(name) && !out.env.defines.count(name) && !out.env.undefs.count(name)) fresh.insert(name);
    }
    if (fresh.empty()) break;
    std::set<std::string, std::less<>> changed = fresh;
    for (const std::string& name : out.applied) {
      auto now = macros.find(name);
      auto before = out.env.per_arch.find(name);
      if (now == macros.end() || before == out.env.per_arch.end() || now->second != before->second)
        changed.insert(name);
    }
    out.applied.insert(fresh.begin(), fresh.end());
    out.env.per_arch = std::move(macros);
    if (round + 1 == kRounds) break;  // no further round reads the definitions
    AuditRun defining(options, files, out.env, shared, Round::kDefinitions, &changed);
    Stopwatch clock;
    defining.Run();
    spdlog::debug("audit: round {}: {} ms, {} files", round, clock.Lap(), defining.rescanned().size());
    for (const auto& [file, defs] : defining.definitions()) definitions[file] = defs;
  }
  return out;
}

// The workers that scan Python modules while the package's macros settle: three in four. The
// rounds read a few dozen files, and their longest file, not their worker count, sets their
// length, and the threads of the scan's side (the lexing ahead, the artifact index) hold cores
// too: on 16 cores the rounds started on 1-6 of the 8 workers half the helpers left them
// (docs/audit.md, nineteenth session).
size_t ModuleHelpers(int jobs) { return static_cast<size_t>(jobs * 3 / 4); }

// Sets `flag` when it goes out of scope.
class SetOnExit {
 public:
  explicit SetOnExit(std::atomic<bool>& flag) : flag_(flag) {}
  SetOnExit(const SetOnExit&) = delete;
  SetOnExit& operator=(const SetOnExit&) = delete;
  ~SetOnExit() { flag_ = true; }

 private:
  std::atomic<bool>& flag_;
};

// Errors and warnings by file, line and column (stable: a place's own come in the order found).
void SortByPlace(std::vector<Error>& errors) {
  std::stable_sort(errors.begin(), errors.end(), [](const Error& a, const Error& b) {
    return std::tie(a.where.file, a.where.line, a.where.column) < std::tie(b.where.file, b.where.line, b.where.column);
  });
}

// What the rounds share, held together so that it can outlive the audit (leave_state_to_process_end).
struct RoundsState {
  RoundsState(const AuditOptions& options, const std::vector<std::string>& files, const std::vector<size_t>& sizes)
      : store(files.size()), python(options, files, sizes, budget), ahead(options.lex_ahead_from) {
    for (size_t i = 0; i < files.size() && i < sizes.size(); ++i) store.NoteSize(i, sizes[i]);
  }
  DirectiveStore store;
  ByteBudget budget;
  PythonModules python;
  LexAhead ahead;
  // In the order made: destroyed the other way round.
  std::optional<AuditRun> read;
  std::optional<PackageMacros> macros;
  std::optional<AuditRun> find;
};

// Every file read once for the package's macros, then analysed once with them (the hazard checks
// inside, on the scan's tokens); the directives kept for the rounds are released at the end.
AuditReport ScanInRounds(const AuditOptions& options, const std::vector<std::string>& files,
                         const std::vector<size_t>& sizes) {
  Stopwatch clock;
  auto state = std::make_unique<RoundsState>(options, files, sizes);
  const SharedByRounds shared{state->store, state->python, state->budget, state->ahead};
  AuditRun& read = state->read.emplace(options, files, options.env, shared, Round::kRead);
  read.Run();
  spdlog::debug("audit: {} files read: {} ms ({} KiB of directives kept)", files.size(), clock.Lap(),
                state->store.bytes() >> 10);
  AuditReport report;
  // Python modules define no macro: while the package's macros settle, most workers scan them
  // (on 16 cores the package-macro rounds held every core 5-7 ms for a few dozen files, most of
  // them idle). The findings round starts as soon as the macros are known, on the workers the
  // rounds used; each helper joins it once its module is done. The largest C/C++ files' lexing
  // ahead, which the macros do not change either, comes first (scan/lex_ahead.h).
  std::atomic<bool> settled{false};
  WorkerPool::Shared().Run(1 + ModuleHelpers(WorkerCount(options.jobs)), [&](size_t slot) {
    if (slot > 0) {
      while (!settled && (state->ahead.RunPending() || state->python.ScanLargest())) {
      }
      return;
    }
    const PackageMacros* macros = nullptr;
    {
      SetOnExit done(settled);  // the helpers stop even if settling throws
      macros = &state->macros.emplace(SettlePackageMacros(options, files, shared, std::move(read.definitions()),
                                                          VerdictArches(options.target, options.against)));
    }
    spdlog::debug("audit: {} package macros: {} ms", macros->applied.size(), clock.Lap());
    AuditRun& find = state->find.emplace(options, files, macros->env, shared, Round::kFindings,
                                         macros->applied.empty() ? nullptr : &macros->applied);
    report = find.Run();
    if (!macros->applied.empty()) report.package_macros = macros->env.per_arch;
  });
  spdlog::debug("audit: {} files parsed: {} ms", report.files_parsed, clock.Lap());
  if (options.leave_state_to_process_end) {
    state->python.Drain();  // no thread of the state's may run at the process's end
    state->ahead.Drain();
    LeaveToProcessEnd(std::move(state));
  }
  return report;
}

}  // namespace

int WorkerCount(int jobs) {
  return jobs > 0 ? jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

std::vector<arch::Arch> VerdictArches(const arch::Arch& target, const std::vector<arch::Arch>& against) {
  std::vector<arch::Arch> arches = {target};
  for (const arch::Arch& a : against.empty() ? arch::AllArches() : against) {
    if (std::find(arches.begin(), arches.end(), a) == arches.end()) arches.push_back(a);
  }
  return arches;
}

bool ExcludesTarget(const Finding& f, const std::string& target, const std::vector<std::string>& others) {
  return Excludes(f, target, others, /*located=*/true);
}

std::vector<Finding> KeepExclusions(std::vector<Finding> found, const std::string& target,
                                    const std::vector<std::string>& others) {
  std::vector<Finding> kept;
  for (Finding& f : found) {
    if (ExcludesTarget(f, target, others)) kept.push_back(std::move(f));
  }
  return kept;
}

void PrepareAuditProcess() {
  static std::once_flag once;
  std::call_once(once, [] {
    // libclang otherwise starts a thread (8 MiB stack) for every parse; our workers have stacks
    // as large. setenv is not safe beside a concurrent getenv.
    ::setenv("LIBCLANG_NOTHREADS", "1", /*overwrite=*/0);
    // The allocator needs no tuning here: the CLI links tcmalloc (CMakeLists.txt). glibc's malloc
    // had to be held to 8 arenas, a 1 MiB trim threshold and a 4 MiB mmap threshold, and trimmed
    // before the report, to keep the GPU machine's environment under 200 MB; tcmalloc's
    // per-thread caches peak at 120-150 MB there (16 workers) for a quarter less CPU.
  });
}

Result<AuditReport> Audit(const AuditOptions& options) {
  PrepareAuditProcess();
  Result<FileList> files = CollectFiles(options.paths, options.walk);
  if (!files) return files.error();
  AuditReport report = ScanInRounds(options, files->files, files->sizes);
  SortByPlace(report.errors);
  SortByPlace(report.warnings);
  report.warnings.insert(report.warnings.begin(), files->warnings.begin(), files->warnings.end());
  report.named_binaries = std::move(files->named_binaries);
  return report;
}

}  // namespace archpatch::scan
