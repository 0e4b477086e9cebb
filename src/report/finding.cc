#include "report/finding.h"

#include <algorithm>
#include <tuple>

namespace archpatch {

Tri Finding::VerdictFor(const std::string& arch) const {
  for (const ArchVerdict& v : verdict) {
    if (v.arch == arch) return v.value;
  }
  return Tri::kUnknown;
}

std::string_view SeverityName(Severity s) {
  switch (s) {
    case Severity::kInfo: return "info";
    case Severity::kWarning: return "warning";
    case Severity::kError: return "error";
  }
  return "warning";
}

nlohmann::ordered_json ToJson(const Finding& f) {
  nlohmann::ordered_json j;
  j["file"] = f.file;
  j["line"] = f.line;
  j["column"] = f.column;
  j["kind"] = f.kind;
  j["severity"] = SeverityName(f.severity);
  j["text"] = f.text;
  nlohmann::ordered_json verdict = nlohmann::ordered_json::object();
  for (const ArchVerdict& v : f.verdict) verdict[v.arch] = TriName(v.value);
  j["verdict"] = verdict;
  if (!f.scope.empty()) j["scope"] = f.scope;
  j["span"] = {{"begin", f.span.begin}, {"end", f.span.end}};
  if (!f.summary.empty()) j["summary"] = f.summary;
  for (const auto& [key, value] : f.details.items()) j[key] = value;
  return j;
}

void SortFindings(std::vector<Finding>& findings) {
  std::stable_sort(findings.begin(), findings.end(), [](const Finding& a, const Finding& b) {
    return std::tie(a.file, a.line, a.column) < std::tie(b.file, b.line, b.column);
  });
}

}  // namespace archpatch
