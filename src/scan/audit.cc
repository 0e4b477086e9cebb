#include "scan/audit.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <malloc.h>
#include <map>
#include <mutex>
#include <set>
#include <sys/mman.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

#include <fmt/format.h>

#include "cuda/gates.h"
#include "cuda/tokens.h"
#include "python/module_names.h"
#include "python/package.h"
#include "python/scanner.h"
#include "scan/package_macros.h"
#include "scan/prefilter.h"
#include "scan/scan.h"
#include "scan/walk.h"
#include "util/input_file.h"
#include "util/library_code.h"

namespace archpatch::scan {
namespace {

// A whole file's bytes: read() into a per-thread buffer for the usual source file (no page
// faults, no munmap), mmap for big ones.
class FileBytes {
 public:
  Status Load(const std::string& path) {
    Unmap();
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return Error{fmt::format("cannot read: {}", std::strerror(errno)), Location{path}};
    struct stat st{};
    size_t size = ::fstat(fd, &st) == 0 ? static_cast<size_t>(st.st_size) : 0;
    if (size > kMaxSourceBytes) {
      ::close(fd);
      return Error{fmt::format("{} bytes is more than a source file may hold ({} MiB)", size, kMaxSourceBytes >> 20),
                   Location{path}};
    }
    if (size > kReadLimit) {
      void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
      if (p != MAP_FAILED) mapped_ = static_cast<const char*>(p), mapped_size_ = size;
    } else {
      buffer_.resize(size);
      size_t got = 0;
      while (got < size) {
        ssize_t n = ::read(fd, buffer_.data() + got, size - got);
        if (n <= 0) break;
        got += static_cast<size_t>(n);
      }
      buffer_.resize(got);
    }
    ::close(fd);
    return Ok{};
  }
  ~FileBytes() { Unmap(); }
  // After a big file: give its buffer back, so an idle worker does not hold the largest file it read.
  void Release() {
    Unmap();
    if (buffer_.capacity() > kKeep) std::string().swap(buffer_);
  }
  std::string_view view() const {
    return mapped_ ? std::string_view(mapped_, mapped_size_) : std::string_view(buffer_);
  }

 private:
  static constexpr size_t kReadLimit = 4 << 20;
  static constexpr size_t kKeep = 256 << 10;
  void Unmap() {
    if (mapped_) ::munmap(const_cast<char*>(mapped_), mapped_size_);
    mapped_ = nullptr, mapped_size_ = 0;
  }
  std::string buffer_;
  const char* mapped_ = nullptr;
  size_t mapped_size_ = 0;
};

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

// Bytes of the files being scanned at once. A file's working set (its tokens, the libclang unit,
// the per-file indexes) is about 25 times its size, so the workers together take at most
// kLimit bytes at a time: peak memory follows the largest file, not the number of workers times
// it. A file over the limit is scanned alone.
class ByteBudget {
 public:
  static constexpr size_t kLimit = 4 << 20;
  size_t Take(size_t bytes) {
    std::unique_lock<std::mutex> lock(mutex_);
    freed_.wait(lock, [&] { return in_flight_ == 0 || in_flight_ + bytes <= kLimit; });
    in_flight_ += bytes;
    return bytes;
  }
  void Give(size_t bytes) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      in_flight_ -= bytes;
    }
    freed_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable freed_;
  size_t in_flight_ = 0;
};

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

class AuditRun {
 public:
  // `env`: options.env, or with the package's per-arch macros for a later round; `names`: in a
  // later round, only files that mention one of them are scanned (directives always checked).
  AuditRun(const AuditOptions& options, std::vector<std::string> files, const cuda::MacroEnv& env,
           const std::set<std::string, std::less<>>* names = nullptr)
      : options_(options),
        env_(env),
        names_(names),
        files_(std::move(files)),
        prefilter_(env),
        arches_(VerdictArches(options.target, options.against)) {
    target_ = options.target.name();
    for (size_t a = 1; a < arches_.size(); ++a) others_.push_back(arches_[a].name());
  }

  AuditReport Run() {
    int jobs = options_.jobs > 0 ? options_.jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
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
    auto by_place = [](const Error& a, const Error& b) {
      return std::tie(a.where.file, a.where.line, a.where.column) <
             std::tie(b.where.file, b.where.line, b.where.column);
    };
    std::stable_sort(report.errors.begin(), report.errors.end(), by_place);
    std::stable_sort(report.warnings.begin(), report.warnings.end(), by_place);
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
    FileBytes file;
    for (size_t m = 0; m < names.size(); ++m) {
      modules[m].file = names[m].file;
      auto whole = gated.find(names[m].file);
      if (!wanted.count(names[m].file)) {
        if (whole != gated.end() && !whole->second.chains.empty())
          chains[names[m].file] = std::move(whole->second.chains);
        continue;
      }
      if (whole != gated.end()) {
        modules[m] = std::move(whole->second);
      } else if (file.Load(names[m].file)) {
        Result<python::ScannedModule> scanned = python::ScanPythonModule(names[m].file, file.view(), arches_);
        if (!scanned) continue;  // the first pass reported it
        modules[m] = std::move(scanned->summary);
      }
      if (!modules[m].chains.empty()) chains[modules[m].file] = std::move(modules[m].chains);
    }
    return modules;
  }
  const std::set<std::string>& rescanned() const { return rescanned_; }

 private:
  void Work(WorkerResult& out) {
    for (size_t i = next_++; i < files_.size(); i = next_++) {
      ScanOne(files_[i], out);
      if (options_.on_file_done && !names_) options_.on_file_done(++done_, files_.size());
    }
  }

  void ScanOne(const std::string& path, WorkerResult& out) {
    thread_local FileBytes file;
    struct stat st{};
    const size_t size = ::stat(path.c_str(), &st) == 0 ? static_cast<size_t>(st.st_size) : 0;
    const size_t taken = budget_.Take(size);
    ScanBytes(path, file, out);
    if (size > kSmallFile) file.Release();
    budget_.Give(taken);
  }

  static constexpr size_t kSmallFile = 256 << 10;

  void ScanBytes(const std::string& path, FileBytes& file, WorkerResult& out) {
    if (Status loaded = file.Load(path); !loaded) return out.errors.push_back(loaded.error());
    std::string_view contents = file.view();
    Result<std::vector<Finding>> found = std::vector<Finding>{};
    std::vector<cuda::Token> tokens;
    std::vector<python::BranchChain> chains;
    if (KindOf(path) == FileKind::kPython) {
      if (names_) return;  // later rounds re-evaluate #if chains only
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
      if (names_ && !MentionsAnyName(contents, *names_)) return;
      if (names_) out.rescanned.push_back(path);
      cuda::GateKinds kinds = options_.prefilter ? prefilter_.Check(contents) : cuda::GateKinds{};
      // Later rounds re-evaluate directives under the package's macros; runtime checks do not
      // read macros, so the first round's findings of them stand (ApplyPackageMacros keeps them).
      if (names_) kinds.directives = true, kinds.runtime = false;
      if (!kinds.directives && !kinds.nv_target && !kinds.runtime) return;
      ++out.parsed;
      tokens = cuda::Tokenize(contents);
      Result<cuda::CudaGates> gates = cuda::ScanCudaGates(path, contents, tokens, arches_, env_, kinds);
      if (!gates) return out.errors.push_back(gates.error());
      std::move(gates->warnings.begin(), gates->warnings.end(), std::back_inserter(out.warnings));
      if (!gates->definitions.empty()) out.definitions[path] = std::move(gates->definitions);
      found = std::move(gates->findings);
    }
    if (!found) return out.errors.push_back(found.error());
    std::vector<Finding> kept;
    for (Finding& f : *found) {
      if (ExcludesTarget(f, target_, others_)) kept.push_back(std::move(f));
    }
    const bool gated =
        std::any_of(kept.begin(), kept.end(), [](const Finding& f) { return f.kind == gate::Kind::kCudaGate; });
    if (gated && options_.after_cuda_file && KindOf(path) == FileKind::kCuda) {
      ScannedFile scanned{path, contents, tokens, env_};
      options_.after_cuda_file(scanned, kept, out.warnings);
    }
    if (!kept.empty() && !chains.empty()) out.chains[path] = std::move(chains);
    std::move(kept.begin(), kept.end(), std::back_inserter(out.findings));
  }

  const AuditOptions& options_;
  const cuda::MacroEnv& env_;
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

// Later rounds: the files that mention a macro the package defines per arch are scanned again with
// those states, and their findings replace the first round's. A round can resolve macros defined
// from other package macros (cutlass/arch/config.h -> cute/arch/config.hpp -> users); three at most.
void ApplyPackageMacros(const AuditOptions& options, const std::vector<std::string>& files,
                        DefinitionsByFile definitions, AuditReport& report) {
  constexpr int kRounds = 3;
  std::set<std::string, std::less<>> applied;
  cuda::MacroEnv env = options.env;
  for (int round = 0; round < kRounds; ++round) {
    PerArchMacros macros = ResolvePackageMacros(definitions, report.arches);
    std::set<std::string, std::less<>> fresh;
    for (const auto& [name, states] : macros) {
      if (!applied.count(name) && !env.defines.count(name) && !env.undefs.count(name)) fresh.insert(name);
    }
    if (fresh.empty()) return;
    applied.insert(fresh.begin(), fresh.end());
    env.per_arch = std::move(macros);
    report.package_macros = env.per_arch;
    AuditRun again(options, files, env, &applied);
    AuditReport more = again.Run();
    const std::set<std::string>& rescanned = again.rescanned();
    for (const auto& [file, defs] : again.definitions()) definitions[file] = defs;
    std::erase_if(report.findings, [&](const Finding& f) {
      return f.kind != gate::Kind::kCppRuntimeGate && rescanned.count(f.file) > 0;
    });
    report.findings.insert(report.findings.end(), more.findings.begin(), more.findings.end());
    SortFindings(report.findings);
  }
}

}  // namespace

std::vector<arch::Arch> VerdictArches(const arch::Arch& target, const std::vector<arch::Arch>& against) {
  std::vector<arch::Arch> arches = {target};
  for (const arch::Arch& a : against.empty() ? arch::AllArches() : against) {
    if (std::find(arches.begin(), arches.end(), a) == arches.end()) arches.push_back(a);
  }
  return arches;
}

bool ExcludesTarget(const Finding& f, const std::string& target, const std::vector<std::string>& others) {
  if (f.VerdictFor(target) != Tri::kFalse) return false;
  if (f.direction == gate::Direction::kFallback) return false;      // the target takes the other path
  if (Holds(f.chain.enclosing, target, Tri::kFalse)) return false;  // the outer gate is the cause
  // The target takes an earlier branch of the chain: excluded only when that branch refuses or is
  // empty (`#if !defined(__CUDA_ARCH_FEAT_SM90_ALL) <error> #else <kernel body>`).
  if (Holds(f.chain.earlier_taken, target, Tri::kTrue) && !TargetTakesLess(f)) return false;
  for (const std::string& other : others) {
    if (f.VerdictFor(other) != Tri::kFalse) return true;
  }
  return false;
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
#endif
  // What libLLVM's and libclang's start-up touched of their code (42 MB, util/library_code.h); a
  // runtime parse maps back the little it runs.
  ReleaseLibraryCode({"libLLVM", "libclang"});
  AuditRun first(options, files->files, options.env);
  AuditReport report = first.Run();
  ApplyPackageMacros(options, files->files, std::move(first.definitions()), report);
  report.warnings.insert(report.warnings.begin(), files->warnings.begin(), files->warnings.end());
  report.named_binaries = std::move(files->named_binaries);
  return report;
}

}  // namespace archpatch::scan
