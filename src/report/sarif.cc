#include "report/sarif.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gate/prebuilt.h"

namespace archpatch::report {
namespace {

struct ClassRule {
  const char* id;
  const char* name;
  const char* level;  // SARIF result level for this class
  const char* text;
};

// One rule per exclusion class (docs/audit.md "What counts as an exclusion").
constexpr ClassRule kRules[] = {
    {"refusal", "Refusal", "error", "The target arch gets an error, a trap or a refusal where other arches get code."},
    {"empty", "EmptyOnTarget", "error",
     "The target arch gets nothing (a kernel or block compiled out) where other arches get code."},
    {"fast-path", "GenericPathOnTarget", "warning",
     "The target arch gets a generic path where other arches get a specialised one."},
    {"hardware-exclusive", "HardwareExclusive", "note",
     "The code needs an instruction the target arch lacks; widening the gate cannot help."},
    {"legacy", "LegacyFallback", "none",
     "A fallback only older arches take; the target takes a branch with code. Not an exclusion."},
    {"other-arch", "OtherArchPath", "none",
     "A path for one other chip, or a refusal the target avoids. Not an exclusion."},
};

int RuleIndex(std::string_view klass) {
  for (int i = 0; i < static_cast<int>(std::size(kRules)); ++i) {
    if (klass == kRules[i].id) return i;
  }
  return static_cast<int>(std::size(kRules)) - 1;
}

bool IsAbsolute(std::string_view path) { return !path.empty() && path.front() == '/'; }

nlohmann::ordered_json PhysicalLocation(const Finding& f) {
  nlohmann::ordered_json artifact = {{"uri", UriReference(f.file)}};
  if (!IsAbsolute(f.file))
    artifact["uriBaseId"] = "SRCROOT";
  else
    artifact["uri"] = "file://" + UriReference(f.file);
  nlohmann::ordered_json region = {{"startLine", std::max(1, f.line)}};
  if (f.column > 0) region["startColumn"] = f.column;
  return {{"artifactLocation", artifact}, {"region", region}};
}

nlohmann::ordered_json Rules() {
  nlohmann::ordered_json rules = nlohmann::ordered_json::array();
  for (const ClassRule& r : kRules) {
    rules.push_back({{"id", r.id},
                     {"name", r.name},
                     {"shortDescription", {{"text", r.text}}},
                     {"defaultConfiguration", {{"level", r.level}}}});
  }
  return rules;
}

// true / false / null: whether the precompiled code the root's module loads runs on the target;
// null also when it loads none (then "prebuilt" in --json is empty).
nlohmann::ordered_json PrebuiltProperty(const Group& g) {
  const Tri runs = gate::PrebuiltRuns(g.prebuilt);
  return runs == Tri::kUnknown ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(runs == Tri::kTrue);
}

std::string Message(const Group& g, const Finding& root, const std::string& target) {
  std::string text =
      fmt::format("{}: '{}' keeps {} out: {}.", gate::ExclusionClassName(g.klass), root.text, target, g.reason);
  if (!g.places.empty())
    text += fmt::format(" It causes {} more gate{}.", g.places.size(), g.places.size() == 1 ? "" : "s");
  text += fmt::format(" Widening: {} ({}).", gate::WidenSafetyName(g.widen),
                      fmt::format("{}", fmt::join(g.widen_reasons, "; ")));
  if (!g.covered_by.empty()) text += fmt::format(" Covered by rule {}.", fmt::join(g.covered_by, ", "));
  if (g.known_unsafe) {
    text += fmt::format(" Do not widen: {}, because {} (known-unsafe {}).", g.known_unsafe->what,
                        g.known_unsafe->because, g.known_unsafe->id);
  }
  if (!g.prebuilt.empty()) text += fmt::format(" Prebuilt: {}.", gate::PrebuiltSentence(g.prebuilt, target));
  return text;
}

nlohmann::ordered_json ResultFor(const Group& g, const std::vector<Finding>& findings, const std::string& target) {
  const Finding& root = findings[g.root];
  const int index = RuleIndex(gate::ExclusionClassName(g.klass));
  nlohmann::ordered_json related = nlohmann::ordered_json::array();
  int id = 1;
  for (size_t p : g.places) {
    nlohmann::ordered_json loc = {{"id", id++}, {"physicalLocation", PhysicalLocation(findings[p])}};
    loc["message"] = {
        {"text", fmt::format("{} ({})", findings[p].text,
                             findings[p].exclusion ? gate::ExclusionClassName(findings[p].exclusion->klass) : "")}};
    related.push_back(loc);
  }
  nlohmann::ordered_json result = {
      {"ruleId", kRules[index].id},
      {"ruleIndex", index},
      {"level", kRules[index].level},
      {"message", {{"text", Message(g, root, target)}}},
      {"locations", nlohmann::ordered_json::array({{{"physicalLocation", PhysicalLocation(root)}}})}};
  if (!related.empty()) result["relatedLocations"] = related;
  result["partialFingerprints"] = {{"archpatchRoot/v1", fmt::format("{}:{}:{}", root.file, root.text, target)}};
  result["properties"] = {
      {"group", g.id},
      {"distribution", g.distribution},
      {"places", g.places.size()},
      {"widen", gate::WidenSafetyName(g.widen)},
      {"features", g.features},
      {"covered_by", g.covered_by},
      {"known_unsafe", g.known_unsafe ? nlohmann::ordered_json(g.known_unsafe->id) : nlohmann::ordered_json(nullptr)},
      {"prebuilt_runs_on_target", PrebuiltProperty(g)}};
  return result;
}

}  // namespace

std::string UriReference(std::string_view path) {
  std::string out;
  for (unsigned char c : path) {
    if (c == '%' || c == ' ' || c == '#' || c == '?' || c < 0x21 || c >= 0x7f) {
      out += fmt::format("%{:02X}", c);
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

nlohmann::ordered_json ToSarif(const std::vector<Group>& groups, const std::vector<Finding>& findings,
                               const SarifOptions& options) {
  nlohmann::ordered_json results = nlohmann::ordered_json::array();
  for (const Group& g : groups) results.push_back(ResultFor(g, findings, options.target));
  std::string root = options.working_dir;
  if (root.empty() || root.back() != '/') root += '/';
  nlohmann::ordered_json run = {
      {"tool", {{"driver", {{"name", "archpatch"}, {"version", options.tool_version}, {"rules", Rules()}}}}},
      {"originalUriBaseIds", {{"SRCROOT", {{"uri", "file://" + UriReference(root)}}}}},
      {"columnKind", "unicodeCodePoints"},
      {"properties", {{"target", options.target}}},
      {"results", results}};
  return {{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
          {"version", "2.1.0"},
          {"runs", nlohmann::ordered_json::array({run})}};
}

}  // namespace archpatch::report
