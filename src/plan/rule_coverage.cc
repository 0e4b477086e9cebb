#include "plan/rule_coverage.h"

#include <fnmatch.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "plan/locate.h"
#include "rules/loader.h"
#include "util/input_file.h"
#include "util/parallel.h"

namespace archpatch::plan {
namespace {

std::optional<std::string> Slurp(const std::string& path) {
  Result<std::string> bytes = ReadInputFile(path, kMaxSourceBytes);
  if (!bytes) return std::nullopt;
  return std::move(*bytes);
}

bool Targets(const rules::Rule& rule, const arch::Arch& target) {
  return std::any_of(rule.targets.begin(), rule.targets.end(),
                     [&](const arch::Arch& a) { return a.plain() == target.plain(); });
}

Result<FilePlaces> Locate(const rules::Edit& edit, const std::string& file, std::string_view contents,
                          const std::vector<arch::Arch>& targets, GateScans& scans) {
  if (const auto* gate = std::get_if<rules::CudaGate>(&edit.action))
    return LocateCudaGates(*gate, file, contents, targets, &scans);
  if (const auto* gate = std::get_if<rules::PythonGate>(&edit.action))
    return LocatePythonGates(*gate, file, contents, targets, &scans);
  return FilePlaces{};
}

bool Selects(const FilePlaces& places, const Finding& f) {
  return std::any_of(places.places.begin(), places.places.end(), [&](const Place& p) {
    return p.begin < f.span.end && f.span.begin < std::max(p.end, p.begin + 1);
  });
}

}  // namespace

std::vector<rules::Rule> ShippedRules() {
  std::vector<rules::Rule> out;
  for (Result<rules::Rule>& rule : rules::LoadRuleFiles(rules::AllRuleFiles(rules::RuleDirectories()))) {
    if (rule && std::none_of(out.begin(), out.end(), [&](const rules::Rule& r) { return r.id == rule->id; })) {
      out.push_back(std::move(*rule));
    }
  }
  return out;
}

bool EditFileMatches(const std::string& glob, const std::string& file) {
  if (fnmatch(glob.c_str(), file.c_str(), FNM_PATHNAME) == 0) return true;
  for (size_t at = file.find('/'); at != std::string::npos; at = file.find('/', at + 1)) {
    if (fnmatch(glob.c_str(), file.c_str() + at + 1, FNM_PATHNAME) == 0) return true;
  }
  return false;
}

bool FileGlobMatcher::Matches(const std::string& glob, std::string_view file) {
  Answers& files = known_[glob];
  auto it = files.find(file);
  if (it == files.end()) it = files.emplace(std::string(file), EditFileMatches(glob, std::string(file))).first;
  return it->second;
}

namespace {

// Where each (edit, file) pair a finding's file matches places its gates, nullopt when the file
// cannot be read or located. Files go to the workers (each with its own GateScans: a scan is
// only ever shared by the edits of one file); rule coverage was most of an audit's serial tail.
using Located = RuleLocations::Places;
using EditsOfFile = std::vector<std::pair<const rules::Edit*, const rules::Rule*>>;

Located LocateAll(const std::map<std::string, EditsOfFile>& by_file, int jobs) {
  std::vector<const std::pair<const std::string, EditsOfFile>*> files;
  for (const auto& entry : by_file) files.push_back(&entry);
  std::vector<std::vector<std::pair<const rules::Edit*, std::optional<FilePlaces>>>> found(files.size());
  ParallelFor(files.size(), jobs, [&](size_t k) {
    const auto& [file, edits] = *files[k];
    const std::optional<std::string> contents = Slurp(file);
    GateScans scans;
    for (const auto& [edit, rule] : edits) {
      std::optional<FilePlaces> places;
      if (contents) {
        Result<FilePlaces> at = Locate(*edit, file, *contents, rule->targets, scans);
        if (at) places = std::move(*at);
      }
      found[k].emplace_back(edit, std::move(places));
    }
  });
  Located out;
  for (size_t k = 0; k < files.size(); ++k) {
    for (auto& [edit, places] : found[k]) out.emplace(std::make_pair(edit, files[k]->first), std::move(places));
  }
  return out;
}

}  // namespace

RuleLocations LocateRules(const std::vector<rules::Rule>& rules, const std::vector<Finding>& findings,
                          const std::vector<size_t>& which, const arch::Arch& target, int jobs) {
  // Each edit located once per file: a file's findings share its places (was once per finding).
  std::vector<std::string> files;
  std::set<std::string_view> seen;
  for (size_t w : which) {
    if (seen.insert(findings[w].file).second) files.push_back(findings[w].file);
  }
  return LocateRulesIn(rules, files, target, jobs);
}

RuleLocations LocateRulesIn(const std::vector<rules::Rule>& rules, const std::vector<std::string>& files,
                            const arch::Arch& target, int jobs) {
  std::map<std::string, EditsOfFile> by_file;
  FileGlobMatcher globs;
  for (const std::string& file : files) {
    for (const rules::Rule& rule : rules) {
      if (!Targets(rule, target)) continue;
      for (const rules::Edit& edit : rule.edits) {
        if (!globs.Matches(edit.file, file)) continue;
        EditsOfFile& edits = by_file[file];
        if (std::none_of(edits.begin(), edits.end(), [&](const auto& e) { return e.first == &edit; })) {
          edits.emplace_back(&edit, &rule);
        }
      }
    }
  }
  return RuleLocations{LocateAll(by_file, jobs)};
}

std::vector<std::vector<std::string>> CoveringRules(const RuleLocations& located, const std::vector<rules::Rule>& rules,
                                                    const std::vector<Finding>& findings,
                                                    const std::vector<size_t>& which, const arch::Arch& target) {
  std::vector<std::vector<std::string>> out(which.size());
  for (size_t w = 0; w < which.size(); ++w) {
    const Finding& f = findings[which[w]];
    for (const rules::Rule& rule : rules) {
      if (!Targets(rule, target)) continue;
      for (const rules::Edit& edit : rule.edits) {
        auto at = located.places.find({&edit, f.file});
        if (at == located.places.end() || !at->second) continue;
        if (Selects(*at->second, f) && std::find(out[w].begin(), out[w].end(), rule.id) == out[w].end()) {
          out[w].push_back(rule.id);
        }
      }
    }
  }
  return out;
}

std::vector<std::vector<std::string>> CoveringRules(const std::vector<rules::Rule>& rules,
                                                    const std::vector<Finding>& findings,
                                                    const std::vector<size_t>& which, const arch::Arch& target,
                                                    int jobs) {
  return CoveringRules(LocateRules(rules, findings, which, target, jobs), rules, findings, which, target);
}

void MarkCoveredByShippedRules(std::vector<gate::Group>& groups, const std::vector<Finding>& findings,
                               const arch::Arch& target, int jobs) {
  MarkCoveredByRules(groups, findings, ShippedRules(), target, jobs);
}

void MarkCoveredByRules(std::vector<gate::Group>& groups, const std::vector<Finding>& findings,
                        const std::vector<rules::Rule>& rules, const arch::Arch& target, int jobs) {
  MarkCovered(groups, CoveringRootCauses(groups, findings, rules, target, jobs));
}

std::vector<std::vector<std::string>> CoveringRootCauses(const std::vector<gate::Group>& groups,
                                                         const std::vector<Finding>& findings,
                                                         const std::vector<rules::Rule>& rules,
                                                         const arch::Arch& target, int jobs) {
  if (rules.empty()) return std::vector<std::vector<std::string>>(groups.size());
  std::vector<size_t> roots;
  for (const gate::Group& g : groups) roots.push_back(g.root);
  return CoveringRules(rules, findings, roots, target, jobs);
}

void MarkCovered(std::vector<gate::Group>& groups, std::vector<std::vector<std::string>> covered) {
  for (size_t i = 0; i < groups.size() && i < covered.size(); ++i) groups[i].covered_by = std::move(covered[i]);
}

}  // namespace archpatch::plan
