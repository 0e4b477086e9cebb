#include "scan/audit.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <malloc.h>
#include <mutex>
#include <set>
#include <thread>

#include <spdlog/spdlog.h>

#include "scan/audit_run.h"
#include "scan/directive_store.h"
#include "scan/package_macros.h"
#include "scan/walk.h"

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
// most, each reading again only the files whose directives may name one found so far.
struct PackageMacros {
  cuda::MacroEnv env;                          // options.env with the per-arch states
  std::set<std::string, std::less<>> applied;  // their names
};

PackageMacros SettlePackageMacros(const AuditOptions& options, const std::vector<std::string>& files,
                                  DirectiveStore& store, DefinitionsByFile definitions,
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
    out.applied.insert(fresh.begin(), fresh.end());
    out.env.per_arch = std::move(macros);
    if (round + 1 == kRounds) break;  // no further round reads the definitions
    AuditRun defining(options, files, out.env, store, Round::kDefinitions, &out.applied);
    Stopwatch clock;
    defining.Run();
    spdlog::debug("audit: round {}: {} ms, {} files", round, clock.Lap(), defining.rescanned().size());
    for (const auto& [file, defs] : defining.definitions()) definitions[file] = defs;
  }
  return out;
}

// Errors and warnings by file, line and column (stable: a place's own come in the order found).
void SortByPlace(std::vector<Error>& errors) {
  std::stable_sort(errors.begin(), errors.end(), [](const Error& a, const Error& b) {
    return std::tie(a.where.file, a.where.line, a.where.column) < std::tie(b.where.file, b.where.line, b.where.column);
  });
}

// Every file read once for the package's macros, then analysed once with them (the hazard checks
// inside, on the scan's tokens); the directives kept for the rounds are released at the end.
AuditReport ScanInRounds(const AuditOptions& options, const std::vector<std::string>& files) {
  Stopwatch clock;
  DirectiveStore store(files.size());
  AuditRun read(options, files, options.env, store, Round::kRead);
  read.Run();
  spdlog::debug("audit: {} files read: {} ms ({} KiB of directives kept)", files.size(), clock.Lap(),
                store.bytes() >> 10);
  const PackageMacros macros = SettlePackageMacros(options, files, store, std::move(read.definitions()),
                                                   VerdictArches(options.target, options.against));
  spdlog::debug("audit: {} package macros: {} ms", macros.applied.size(), clock.Lap());
  AuditRun find(options, files, macros.env, store, Round::kFindings,
                macros.applied.empty() ? nullptr : &macros.applied);
  AuditReport report = find.Run();
  if (!macros.applied.empty()) report.package_macros = macros.env.per_arch;
  spdlog::debug("audit: {} files parsed: {} ms", report.files_parsed, clock.Lap());
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

void PrepareAuditProcess() {
  static std::once_flag once;
  std::call_once(once, [] {
    // libclang otherwise starts a thread (8 MiB stack) for every parse; our workers have stacks
    // as large. setenv is not safe beside a concurrent getenv.
    ::setenv("LIBCLANG_NOTHREADS", "1", /*overwrite=*/0);
#ifdef __GLIBC__
    // glibc gives every thread an arena of its own (up to 8 per core) and keeps what a big file's
    // scan freed: at -j8 on a generated 1.5 GB site-packages that was half the peak RSS (513 MB;
    // 270 MB with these). Fewer arenas than workers cost locking: on the GPU machine's
    // environment (16 workers, 4 runs each) 4 arenas peaked at 163-170 MB for 14.6-15.3 s of CPU,
    // 8 at 167-176 MB for 11.6-12.2 s, 16 at 169-183 MB for 10.4-10.8 s. An arena made before
    // this stays: when the walk's threads ran first, that audit peaked at 194-217 MB.
    ::mallopt(M_ARENA_MAX, 8);
    ::mallopt(M_TRIM_THRESHOLD, 1 << 20);
    // Setting the trim threshold also fixes glibc's mmap threshold at 128 KiB: every token vector
    // of a file over 32 KiB was then a fresh mmap, faulted in page by page and unmapped again
    // (FlashInfer + CUTLASS, 2 cores: 233k page faults, 0.55 s of kernel time). At 4 MiB: 139k
    // faults, 0.25 s, about 0.1 s less wall. Not higher: on the GPU machine's environment (16
    // workers) 16 MiB raised the peak RSS from 182 to 190-195 MB for no time; 4 MiB gives 183-186.
    ::mallopt(M_MMAP_THRESHOLD, 4 << 20);
#endif
  });
}

Result<AuditReport> Audit(const AuditOptions& options) {
  PrepareAuditProcess();
  Result<FileList> files = CollectFiles(options.paths, options.walk);
  if (!files) return files.error();
  AuditReport report = ScanInRounds(options, files->files);
#ifdef __GLIBC__
  // What the workers freed goes back to the system before the report's end and the binary scan
  // add their own: 8-10 MB less at the GPU environment's peak.
  ::malloc_trim(0);
#endif
  SortByPlace(report.errors);
  SortByPlace(report.warnings);
  report.warnings.insert(report.warnings.begin(), files->warnings.begin(), files->warnings.end());
  report.named_binaries = std::move(files->named_binaries);
  return report;
}

}  // namespace archpatch::scan
