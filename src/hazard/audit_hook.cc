#include "hazard/audit_hook.h"

#include <algorithm>
#include <atomic>
#include <fstream>
#include <thread>
#include <optional>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "hazard/check.h"
#include "scan/scan.h"

namespace archpatch::hazard {
namespace {

std::optional<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void AddExplanation(Finding& f) {
  std::vector<std::string> lines = ExplainLines(f);
  if (!lines.empty()) f.details["explain"] = lines;
}

}  // namespace

void AugmentAudit(scan::AuditReport& report, const cuda::MacroEnv& env, int jobs) {
  if (report.arches.empty()) return;
  // Findings of one file, by index, so each file is read and checked once.
  std::map<std::string, std::vector<size_t>> by_file;
  for (size_t i = 0; i < report.findings.size(); ++i) {
    const Finding& f = report.findings[i];
    if (f.kind == "cuda-gate" && scan::KindOf(f.file) == scan::FileKind::kCuda) by_file[f.file].push_back(i);
  }
  CheckOptions options;
  options.target = report.arches.front();
  options.arches = report.arches;
  options.env = env;
  (void)DefaultFeatures();  // load the table once, before the workers share it

  struct Work {
    const std::string* file;
    const std::vector<size_t>* indices;
    Result<FileHazards> hazards = Error{"not checked", {}};
  };
  std::vector<Work> work;
  for (const auto& [file, indices] : by_file) work.push_back({&file, &indices});
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t w; (w = next++) < work.size();) {
      std::optional<std::string> contents = ReadFile(*work[w].file);
      if (contents) work[w].hazards = CheckFile(*work[w].file, *contents, options);
    }
  };
  const int threads = std::max(1, std::min<int>(jobs > 0 ? jobs : static_cast<int>(std::thread::hardware_concurrency()),
                                                static_cast<int>(work.size())));
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (std::thread& t : pool) t.join();

  std::vector<Finding> added;
  for (Work& w : work) {
    if (!w.hazards) {
      report.warnings.push_back(
          Error{fmt::format("hazard checks skipped: {}", w.hazards.error().message), {*w.file, 0, 0}});
      continue;
    }
    std::vector<Finding> gates;
    for (size_t i : *w.indices) gates.push_back(std::move(report.findings[i]));
    AnnotateGateFindings(gates, *w.hazards, options.target);
    for (size_t k = 0; k < w.indices->size(); ++k) {
      AddExplanation(gates[k]);
      report.findings[(*w.indices)[k]] = std::move(gates[k]);
    }
    for (Finding f : w.hazards->empty_kernels) {
      AddExplanation(f);
      added.push_back(std::move(f));
    }
  }
  report.findings.insert(report.findings.end(), added.begin(), added.end());
  SortFindings(report.findings);
}

}  // namespace archpatch::hazard
