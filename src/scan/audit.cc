#include "scan/audit.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <malloc.h>
#include <map>
#include <set>
#include <thread>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "cuda/gates.h"
#include "cuda/tokens.h"
#include "python/module_names.h"
#include "python/package.h"
#include "python/scanner.h"
#include "scan/directive_store.h"
#include "scan/file_bytes.h"
#include "scan/file_pass.h"
#include "scan/package_macros.h"
#include "util/parallel.h"
#include "scan/prefilter.h"
#include "scan/scan.h"
#include "scan/walk.h"
#include "util/library_code.h"

namespace archpatch::scan {
namespace {

// Whether `verdicts` (when there are any) hold `value` for `arch`.
bool Holds(const std::optional<gate::Verdicts>& verdicts, const std::string& arch, Tri value) {
  return verdicts && gate::VerdictOn(*verdicts, arch) == value;
}

// Whether the branch the target takes instead refuses or holds nothing.
bool TargetTakesLess(const Finding& f) {
  if (!f.exclusion || !f.exclusion->target_takes) return false;
  const gate::BlockHolds holds = f.exclusion->target_takes->holds;
  return holds == gate::BlockHolds::kRefusal || holds == gate::BlockHolds::kNothing;
}

// ExcludesTarget; before a #if branch is located in its file (`located` false: a draft, what
// the target's earlier branch holds unknown) it may only err towards keeping the finding.
bool Excludes(const Finding& f, const std::string& target, const std::vector<std::string>& others, bool located) {
  if (f.VerdictFor(target) != Tri::kFalse) return false;
  if (f.direction == gate::Direction::kFallback) return false;      // the target takes the other path
  if (Holds(f.chain.enclosing, target, Tri::kFalse)) return false;  // the outer gate is the cause
  // The target takes an earlier branch of the chain: excluded only when that branch refuses or is
  // empty (`#if !defined(__CUDA_ARCH_FEAT_SM90_ALL) <error> #else <kernel body>`).
  if (located && Holds(f.chain.earlier_taken, target, Tri::kTrue) && !TargetTakesLess(f)) return false;
  for (const std::string& other : others) {
    if (f.VerdictFor(other) != Tri::kFalse) return true;
  }
  return false;
}

using DefinitionsByFile = std::map<std::string, std::vector<cuda::MacroDefinition>>;

struct WorkerResult {
  std::vector<Finding> findings;
  std::vector<Error> errors, warnings;
  DefinitionsByFile definitions;
  std::vector<std::string> rescanned;                              // later rounds: the files scanned again
  std::vector<python::ModuleNames> module_names;                   // for the package model (python/module_names.h)
  std::map<std::string, python::ModuleSummary> gated_modules;      // whole: modules with gates of their own
  std::map<std::string, std::vector<python::BranchChain>> chains;  // of modules that keep a finding
  size_t parsed = 0;
};

// What a run of the scan is for.
enum class Round {
  kFirst,        // every file, every analysis
  kDefinitions,  // a later round's files that may #define something: only their definitions
  kLast,         // a later round's files, directives evaluated again: their findings replace the first's
};

class AuditRun {
 public:
  // `env`: options.env, or with the package's per-arch macros for a later round; `names`: in a
  // later round, only files that mention one of them are scanned (directives always checked).
  // `store`: where the directives of the files read are kept, and a later round finds them.
  AuditRun(const AuditOptions& options, std::vector<std::string> files, const cuda::MacroEnv& env,
           DirectiveStore& store, Round round = Round::kFirst,
           const std::set<std::string, std::less<>>* names = nullptr)
      : options_(options),
        env_(env),
        store_(store),
        round_(round),
        names_(names),
        files_(std::move(files)),
        prefilter_(env),
        arches_(VerdictArches(options.target, options.against)) {
    target_ = options.target.name();
    for (size_t a = 1; a < arches_.size(); ++a) others_.push_back(arches_[a].name());
  }

  AuditReport Run() {
    int jobs = WorkerCount(options_.jobs);
    jobs = std::min<int>(jobs, std::max<size_t>(1, files_.size()));
    std::vector<WorkerResult> results(jobs);
    std::vector<std::thread> threads;
    for (int j = 1; j < jobs; ++j) threads.emplace_back([this, &results, j] { Work(results[j]); });
    Work(results[0]);
    for (std::thread& t : threads) t.join();
    AuditReport report;
    report.arches = arches_;
    report.files_scanned = files_.size();
    std::vector<python::ModuleNames> names;
    std::map<std::string, std::vector<python::BranchChain>> chains;
    std::map<std::string, python::ModuleSummary> gated;
    for (WorkerResult& r : results) {
      std::move(r.module_names.begin(), r.module_names.end(), std::back_inserter(names));
      chains.merge(r.chains);
      gated.merge(r.gated_modules);
      std::move(r.findings.begin(), r.findings.end(), std::back_inserter(report.findings));
      std::move(r.errors.begin(), r.errors.end(), std::back_inserter(report.errors));
      std::move(r.warnings.begin(), r.warnings.end(), std::back_inserter(report.warnings));
      report.files_parsed += r.parsed;
      definitions_.merge(r.definitions);
      rescanned_.insert(r.rescanned.begin(), r.rescanned.end());
    }
    std::vector<python::ModuleSummary> modules = SummariesThatMatter(names, gated, chains);
    std::vector<Finding> resolved = python::PackageModel(std::move(modules), arches_).BranchFindings();
    python::PackageModel::DropBoundComparisons(report.findings, resolved);
    python::MarkChainSiblings(chains, report.findings, resolved);
    std::erase_if(report.findings, [&](const Finding& f) {  // a module's own findings, marked again
      return f.kind == gate::Kind::kPythonGate && !ExcludesTarget(f, target_, others_);
    });
    for (Finding& f : resolved) {
      if (ExcludesTarget(f, target_, others_)) report.findings.push_back(std::move(f));
    }
    SortFindings(report.findings);
    return report;
  }

  DefinitionsByFile& definitions() { return definitions_; }

  // The package model's input, in scan order so that module lookups see every module as before:
  // the full summary of each module ModulesThatMatter names (kept from the first pass for a module
  // with gates of its own, scanned again for the few others: those that import or call a
  // predicate reaching a gate), and the file alone for the rest.
  std::vector<python::ModuleSummary> SummariesThatMatter(
      const std::vector<python::ModuleNames>& names, std::map<std::string, python::ModuleSummary>& gated,
      std::map<std::string, std::vector<python::BranchChain>>& chains) {
    const std::set<std::string> wanted = python::ModulesThatMatter(names);
    std::vector<python::ModuleSummary> modules(names.size());
    std::vector<size_t> again;  // wanted, with no gates of their own: scanned again
    for (size_t m = 0; m < names.size(); ++m) {
      modules[m].file = names[m].file;
      auto whole = gated.find(names[m].file);
      if (!wanted.count(names[m].file)) {
        if (whole != gated.end() && !whole->second.chains.empty())
          chains[names[m].file] = std::move(whole->second.chains);
        continue;
      }
      if (whole == gated.end()) {
        again.push_back(m);
        continue;
      }
      modules[m] = std::move(whole->second);
      if (!modules[m].chains.empty()) chains[modules[m].file] = std::move(modules[m].chains);
    }
    SummarizeAgain(again, modules);
    for (size_t m : again) {
      if (!modules[m].chains.empty()) chains[modules[m].file] = std::move(modules[m].chains);
    }
    return modules;
  }

  // The modules at `which` scanned again, on the workers (each writes its own slots): on the
  // trees of FlashInfer and CUTLASS these were 53 modules and 50 ms on one thread.
  void SummarizeAgain(const std::vector<size_t>& which, std::vector<python::ModuleSummary>& modules) const {
    ParallelFor(which.size(), WorkerCount(options_.jobs), [&](size_t k) {
      python::ModuleSummary& module = modules[which[k]];
      FileBytes file;
      if (!file.Load(module.file)) return;
      Result<python::ScannedModule> scanned = python::ScanPythonModule(module.file, file.view(), arches_);
      if (scanned) module = std::move(scanned->summary);  // otherwise the first pass reported it
    });
  }
  const std::set<std::string>& rescanned() const { return rescanned_; }

 private:
  void Work(WorkerResult& out) {
    for (size_t i = next_++; i < files_.size(); i = next_++) {
      ScanOne(i, out);
      if (options_.on_file_done && !names_) options_.on_file_done(++done_, files_.size());
    }
  }

  void ScanOne(size_t index, WorkerResult& out) {
    const std::string& path = files_[index];
    if (names_ && KindOf(path) == FileKind::kPython) return;  // later rounds re-evaluate #if chains only
    if (round_ == Round::kDefinitions && DefineAgain(index, out)) return;
    if (names_ && !store_.MayMention(index, *names_)) return;  // its directives name none of them
    thread_local FileBytes file;
    const size_t size = SizeOnDisk(path);
    const size_t taken = budget_.Take(size);
    ScanBytes(index, file, out);
    if (size > kSmallFile) file.Release();
    budget_.Give(taken);
  }

  static constexpr size_t kSmallFile = 256 << 10;

  // A definitions round, from what the store knows of the file: true when that was enough.
  bool DefineAgain(size_t index, WorkerResult& out) {
    switch (store_.Of(index)) {
      case DirectiveStore::Known::kUnread: return false;
      case DirectiveStore::Known::kNoDefinitions: return true;
      case DirectiveStore::Known::kKept: break;
    }
    const std::string& path = files_[index];
    const cuda::DirectiveScan& scan = store_.Scan(index);
    if (!DirectivesMention(scan, *names_)) return true;  // evaluates as before
    out.rescanned.push_back(path);
    out.definitions[path] = cuda::DefinitionsOf(scan, arches_, env_, path);
    return true;
  }

  void ScanBytes(size_t index, FileBytes& file, WorkerResult& out) {
    const std::string& path = files_[index];
    if (Status loaded = file.Load(path); !loaded) return out.errors.push_back(loaded.error());
    std::string_view contents = file.view();
    Result<std::vector<Finding>> found = std::vector<Finding>{};
    std::vector<python::BranchChain> chains;
    if (KindOf(path) == FileKind::kPython) {
      ++out.parsed;
      Result<python::ScannedModule> scanned = python::ScanPythonModule(path, contents, arches_);
      if (!scanned) return out.errors.push_back(scanned.error());
      found = std::move(scanned->findings);
      out.module_names.push_back(python::NamesOf(scanned->summary));
      if (!scanned->summary.gates.empty()) {
        out.gated_modules[path] = std::move(scanned->summary);
      } else {
        chains = std::move(scanned->summary.chains);
      }
    } else {
      if (!names_) store_.KeepNames(index, DirectiveNames::Of(contents));
      if (names_ && !MentionsAnyName(contents, *names_)) return;
      if (names_) out.rescanned.push_back(path);
      cuda::GateKinds kinds = options_.prefilter ? prefilter_.Check(contents) : cuda::GateKinds{};
      kinds.wanted = [this](const Finding& draft) { return Excludes(draft, target_, others_, /*located=*/false); };
      // Later rounds re-evaluate directives under the package's macros; runtime checks do not
      // read macros, so the first round's findings of them stand (ApplyPackageMacros keeps them).
      if (names_) kinds.directives = true, kinds.runtime = false;
      if (round_ == Round::kDefinitions) kinds.nv_target = false;
      if (!kinds.directives && !kinds.nv_target && !kinds.runtime) return;
      ++out.parsed;
      const std::vector<cuda::Token> tokens = cuda::Tokenize(contents);
      Result<cuda::CudaGates> gates = cuda::ScanCudaGates(path, contents, tokens, arches_, env_, kinds);
      if (!gates) return out.errors.push_back(gates.error());
      std::move(gates->warnings.begin(), gates->warnings.end(), std::back_inserter(out.warnings));
      if (kinds.directives) store_.Keep(index, gates->directives, !gates->definitions.empty());
      if (!gates->definitions.empty()) out.definitions[path] = std::move(gates->definitions);
      if (round_ == Round::kDefinitions) return;
      found = std::move(gates->findings);
    }
    if (!found) return out.errors.push_back(found.error());
    std::vector<Finding> kept;
    for (Finding& f : *found) {
      if (ExcludesTarget(f, target_, others_)) kept.push_back(std::move(f));
    }
    if (!kept.empty() && !chains.empty()) out.chains[path] = std::move(chains);
    std::move(kept.begin(), kept.end(), std::back_inserter(out.findings));
  }

  const AuditOptions& options_;
  const cuda::MacroEnv& env_;
  DirectiveStore& store_;
  const Round round_;
  const std::set<std::string, std::less<>>* names_;
  DefinitionsByFile definitions_;
  std::set<std::string> rescanned_;
  std::vector<std::string> files_;
  Prefilter prefilter_;
  std::vector<arch::Arch> arches_;
  std::string target_;
  std::vector<std::string> others_;
  ByteBudget budget_;
  std::atomic<size_t> next_{0};
  std::atomic<size_t> done_{0};
};

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

// What the later rounds leave: the environment of their last scan and the files it scanned.
struct LaterRounds {
  cuda::MacroEnv env;
  std::set<std::string> rescanned;
};

// Later rounds: the files that mention a macro the package defines per arch are scanned again with
// those states, and their findings replace the first round's. A round can resolve macros defined
// from other package macros (cutlass/arch/config.h -> cute/arch/config.hpp -> users); three at
// most. The macros settle first, scanning again only the files that may define one; then every
// file that mentions one is scanned once, with all of them.
LaterRounds ApplyPackageMacros(const AuditOptions& options, const std::vector<std::string>& files,
                               DirectiveStore& store, DefinitionsByFile definitions, AuditReport& report) {
  constexpr int kRounds = 3;
  std::set<std::string, std::less<>> applied;
  LaterRounds later{options.env, {}};
  for (int round = 0; round < kRounds; ++round) {
    PerArchMacros macros = ResolvePackageMacros(definitions, report.arches);
    std::set<std::string, std::less<>> fresh;
    for (const auto& [name, states] : macros) {
      if (!applied.count(name) && !later.env.defines.count(name) && !later.env.undefs.count(name)) fresh.insert(name);
    }
    if (fresh.empty()) break;
    applied.insert(fresh.begin(), fresh.end());
    later.env.per_arch = std::move(macros);
    if (round + 1 == kRounds) break;  // no further round reads the definitions
    AuditRun defining(options, files, later.env, store, Round::kDefinitions, &applied);
    Stopwatch clock;
    defining.Run();
    spdlog::debug("audit: round {}: {} ms, {} files", round, clock.Lap(), defining.rescanned().size());
    for (const auto& [file, defs] : defining.definitions()) definitions[file] = defs;
  }
  if (applied.empty()) return later;
  report.package_macros = later.env.per_arch;
  AuditRun again(options, files, later.env, store, Round::kLast, &applied);
  AuditReport more = again.Run();
  later.rescanned = again.rescanned();
  spdlog::debug("audit: {} package macros, {} files scanned again", applied.size(), later.rescanned.size());
  std::erase_if(report.findings, [&](const Finding& f) {
    return f.kind != gate::Kind::kCppRuntimeGate && later.rescanned.count(f.file) > 0;
  });
  report.findings.insert(report.findings.end(), std::make_move_iterator(more.findings.begin()),
                         std::make_move_iterator(more.findings.end()));
  SortFindings(report.findings);
  return later;
}

// Errors and warnings by file, line and column (stable: a place's own come in the order found).
void SortByPlace(std::vector<Error>& errors) {
  std::stable_sort(errors.begin(), errors.end(), [](const Error& a, const Error& b) {
    return std::tie(a.where.file, a.where.line, a.where.column) < std::tie(b.where.file, b.where.line, b.where.column);
  });
}

// The first round, then the later ones; the directives kept for them are released before the
// hazard pass.
std::pair<AuditReport, LaterRounds> ScanInRounds(const AuditOptions& options, const std::vector<std::string>& files) {
  Stopwatch clock;
  DirectiveStore store(files.size());
  AuditRun first(options, files, options.env, store);
  AuditReport report = first.Run();
  spdlog::debug("audit: {} files scanned, {} parsed: {} ms ({} KiB of directives kept)", report.files_scanned,
                report.files_parsed, clock.Lap(), store.bytes() >> 10);
  LaterRounds later = ApplyPackageMacros(options, files, store, std::move(first.definitions()), report);
  spdlog::debug("audit: package macros: {} ms", clock.Lap());
  return {std::move(report), std::move(later)};
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

Result<AuditReport> Audit(const AuditOptions& options) {
  Result<FileList> files = CollectFiles(options.paths, options.walk);
  if (!files) return files.error();
  // libclang otherwise starts a thread (8 MiB stack) for every parse; our workers have stacks
  // as large. Set before any worker starts: setenv is not safe beside a concurrent getenv.
  ::setenv("LIBCLANG_NOTHREADS", "1", /*overwrite=*/0);
#ifdef __GLIBC__
  // glibc gives every worker an arena of its own and keeps what a big file's scan freed: at -j8 on
  // a generated 1.5 GB site-packages that was half the peak RSS (513 MB; 270 MB with these, same
  // CPU). Also before any worker starts.
  ::mallopt(M_ARENA_MAX, 4);
  ::mallopt(M_TRIM_THRESHOLD, 1 << 20);
  // Setting the trim threshold also fixes glibc's mmap threshold at 128 KiB: every token vector
  // of a file over 32 KiB was then a fresh mmap, faulted in page by page and unmapped again
  // (FlashInfer + CUTLASS, 2 cores: 233k page faults, 0.55 s of kernel time). At 4 MiB: 139k
  // faults, 0.25 s, about 0.1 s less wall. Not higher: on the GPU machine's environment (16
  // workers) 16 MiB raised the peak RSS from 182 to 190-195 MB for no time; 4 MiB gives 183-186.
  ::mallopt(M_MMAP_THRESHOLD, 4 << 20);
#endif
  // What libLLVM's and libclang's start-up touched of their code (42 MB, util/library_code.h); a
  // runtime parse maps back the little it runs.
  ReleaseLibraryCode({"libLLVM", "libclang"});
  std::pair<AuditReport, LaterRounds> rounds = ScanInRounds(options, files->files);
  AuditReport& report = rounds.first;
  const LaterRounds& later = rounds.second;
  Stopwatch clock;
  RunFilePass(options, FinalEnvironment{options.env, later.env, later.rescanned}, report);
  spdlog::debug("audit: hazard pass: {} ms", clock.Lap());
  SortByPlace(report.errors);
  SortByPlace(report.warnings);
  report.warnings.insert(report.warnings.begin(), files->warnings.begin(), files->warnings.end());
  report.named_binaries = std::move(files->named_binaries);
  return std::move(report);
}

}  // namespace archpatch::scan
