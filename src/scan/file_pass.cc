#include "scan/file_pass.h"

#include <algorithm>
#include <atomic>
#include <thread>

#include "cuda/directives.h"
#include "cuda/gates.h"
#include "cuda/tokens.h"
#include "scan/file_bytes.h"
#include "scan/scan.h"

namespace archpatch::scan {
namespace {

// One file's findings: report.findings[begin, end), and whether the pass runs on them.
struct FileFindings {
  size_t begin = 0, end = 0;
  bool gated = false;
};

// report.findings is sorted by file: one group per file.
std::vector<FileFindings> GroupByFile(const std::vector<Finding>& findings) {
  std::vector<FileFindings> groups;
  for (size_t i = 0; i < findings.size(); ++i) {
    if (groups.empty() || findings[i].file != findings[groups.back().begin].file) groups.push_back({i, i, false});
    groups.back().end = i + 1;
    groups.back().gated |= findings[i].kind == gate::Kind::kCudaGate;
  }
  for (FileFindings& g : groups) g.gated &= KindOf(findings[g.begin].file) == FileKind::kCuda;
  return groups;
}

struct PassOutput {
  std::vector<Finding> findings;
  std::vector<Error> warnings;
};

class FilePassRun {
 public:
  FilePassRun(const AuditOptions& options, const FinalEnvironment& env, std::vector<Finding>& findings,
              std::vector<FileFindings> gated)
      : options_(options), env_(env), findings_(findings), gated_(std::move(gated)), out_(gated_.size()) {}

  std::vector<PassOutput> Run() {
    int jobs = WorkerCount(options_.jobs);
    jobs = std::min<int>(jobs, std::max<size_t>(1, gated_.size()));
    std::vector<std::thread> threads;
    for (int j = 1; j < jobs; ++j) threads.emplace_back([this] { Work(); });
    Work();
    for (std::thread& t : threads) t.join();
    return std::move(out_);
  }

 private:
  void Work() {
    FileBytes file;
    for (size_t g = next_++; g < gated_.size(); g = next_++) {
      const std::string path = findings_[gated_[g].begin].file;
      const size_t taken = budget_.Take(SizeOnDisk(path));
      PassOne(path, gated_[g], file, out_[g]);
      file.Release();
      budget_.Give(taken);
    }
  }

  void PassOne(const std::string& path, const FileFindings& group, FileBytes& file, PassOutput& out) {
    out.findings.assign(std::make_move_iterator(findings_.begin() + static_cast<std::ptrdiff_t>(group.begin)),
                        std::make_move_iterator(findings_.begin() + static_cast<std::ptrdiff_t>(group.end)));
    if (Status loaded = file.Load(path); !loaded) {  // changed since the scan read it
      out.warnings.push_back(Error{"hazard checks skipped: " + loaded.error().message, {path, 0, 0}});
      return;
    }
    std::vector<cuda::Token> tokens = cuda::Tokenize(file.view());
    // The file's own #defines read as it says (cuda::WithoutOwnMacros), as its gates were
    // evaluated: widening `#if ... #define X` must reach the file's `#if X` blocks.
    const cuda::MacroEnv& package = env_.Of(path);
    const cuda::MacroEnv env = package.per_arch.empty()
                                   ? package
                                   : cuda::WithoutOwnMacros(package, cuda::ReadDirectives(tokens, file.view(), path));
    ScannedFile scanned{path, file.view(), tokens, env};
    options_.after_cuda_file(scanned, out.findings, out.warnings);
  }

  const AuditOptions& options_;
  const FinalEnvironment& env_;
  std::vector<Finding>& findings_;  // the pass's groups are moved out, each by one worker
  std::vector<FileFindings> gated_;
  std::vector<PassOutput> out_;
  ByteBudget budget_;
  std::atomic<size_t> next_{0};
};

}  // namespace

void RunFilePass(const AuditOptions& options, const FinalEnvironment& env, AuditReport& report) {
  if (!options.after_cuda_file) return;
  const std::vector<FileFindings> groups = GroupByFile(report.findings);
  std::vector<FileFindings> gated;
  std::copy_if(groups.begin(), groups.end(), std::back_inserter(gated), [](const FileFindings& g) { return g.gated; });
  if (gated.empty()) return;
  std::vector<PassOutput> passed = FilePassRun(options, env, report.findings, gated).Run();
  std::vector<Finding> findings;
  findings.reserve(report.findings.size());
  size_t next_gated = 0;
  for (const FileFindings& g : groups) {
    if (g.gated) {
      PassOutput& out = passed[next_gated++];
      std::move(out.findings.begin(), out.findings.end(), std::back_inserter(findings));
      std::move(out.warnings.begin(), out.warnings.end(), std::back_inserter(report.warnings));
    } else {
      std::move(report.findings.begin() + static_cast<std::ptrdiff_t>(g.begin),
                report.findings.begin() + static_cast<std::ptrdiff_t>(g.end), std::back_inserter(findings));
    }
  }
  report.findings = std::move(findings);
  SortFindings(report.findings);  // a file's added findings (empty kernels) among its others
}

}  // namespace archpatch::scan
