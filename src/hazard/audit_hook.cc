#include "hazard/audit_hook.h"

#include <fstream>
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

void AugmentAudit(scan::AuditReport& report, const cuda::MacroEnv& env) {
  if (report.arches.empty()) return;
  // Findings of one file, by index, so each file is read and parsed once.
  std::map<std::string, std::vector<size_t>> by_file;
  for (size_t i = 0; i < report.findings.size(); ++i) {
    const Finding& f = report.findings[i];
    if (f.kind == "cuda-gate" && scan::KindOf(f.file) == scan::FileKind::kCuda) by_file[f.file].push_back(i);
  }
  CheckOptions options;
  options.target = report.arches.front();
  options.arches = report.arches;
  options.env = env;
  std::vector<Finding> added;
  for (const auto& [file, indices] : by_file) {
    std::optional<std::string> contents = ReadFile(file);
    if (!contents) continue;
    Result<FileHazards> hazards = CheckFile(file, *contents, options);
    if (!hazards) {
      report.warnings.push_back(Error{fmt::format("hazard checks skipped: {}", hazards.error().message), {file, 0, 0}});
      continue;
    }
    std::vector<Finding> gates;
    for (size_t i : indices) gates.push_back(std::move(report.findings[i]));
    AnnotateGateFindings(gates, *hazards, options.target);
    for (size_t k = 0; k < indices.size(); ++k) {
      AddExplanation(gates[k]);
      report.findings[indices[k]] = std::move(gates[k]);
    }
    for (Finding f : hazards->empty_kernels) {
      AddExplanation(f);
      added.push_back(std::move(f));
    }
  }
  report.findings.insert(report.findings.end(), added.begin(), added.end());
  SortFindings(report.findings);
}

}  // namespace archpatch::hazard
