// Which shipped rules cover a gate the audit reports: a rule covers a finding when one of its
// cuda-gate or python-gate edits, applied to the finding's file, selects the finding's condition
// (plan::LocateCudaGates / LocatePythonGates, as `apply` would) and the rule targets the audit's
// arch. The audit marks each root cause with the ids (docs/audit.md `covered_by`).
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "arch/arch.h"
#include "gate/finding.h"
#include "gate/group.h"
#include "plan/locate.h"
#include "rules/rule.h"

namespace archpatch::plan {

// The rules of every folder of rules::RuleDirectories() (unreadable ones skipped).
std::vector<rules::Rule> ShippedRules();

// Whether the edit's file glob (relative to site-packages) matches `file` or one of its suffixes
// at a '/' boundary ("flashinfer/jit/comm.py" matches "tree/flashinfer/jit/comm.py").
bool EditFileMatches(const std::string& glob, const std::string& file);

// EditFileMatches, each (glob, file) pair answered once: a report asks it for every finding of a
// file against every glob of the rules and the known-unsafe list (fnmatch at each '/' of the
// path), 80 M instructions of the serial end of an audit of FlashInfer + CUTLASS.
class FileGlobMatcher {
 public:
  bool Matches(const std::string& glob, std::string_view file);

 private:
  // Hashed, by string_view: the paths of a tree share long prefixes, which an ordered map
  // compared again at every level (764k lookups for the known-unsafe marks of FlashInfer + CUTLASS).
  struct PathHash {
    using is_transparent = void;
    size_t operator()(std::string_view path) const { return std::hash<std::string_view>{}(path); }
  };
  using Answers = std::unordered_map<std::string, bool, PathHash, std::equal_to<>>;  // file -> answer
  std::map<std::string, Answers, std::less<>> known_;                                // glob -> answers
};

// Where the rules' edits place their gates in the files of the findings of `which` (each file
// read and located once, on `jobs` threads). It reads the findings' files alone: the audit runs
// it beside the grouping, before the roots are known.
struct RuleLocations {
  using Places = std::map<std::pair<const rules::Edit*, std::string>, std::optional<FilePlaces>>;
  Places places;  // nullopt: the file could not be read or located
};
RuleLocations LocateRules(const std::vector<rules::Rule>& rules, const std::vector<Finding>& findings,
                          const std::vector<size_t>& which, const arch::Arch& target, int jobs);
// The same in `files` (the findings' files, each once).
RuleLocations LocateRulesIn(const std::vector<rules::Rule>& rules, const std::vector<std::string>& files,
                            const arch::Arch& target, int jobs);
// For each finding of `which`, the ids of the rules that cover it, from what LocateRules found.
std::vector<std::vector<std::string>> CoveringRules(const RuleLocations& located, const std::vector<rules::Rule>& rules,
                                                    const std::vector<Finding>& findings,
                                                    const std::vector<size_t>& which, const arch::Arch& target);
// Both: for each finding of `which`, the ids of the rules (among `rules`) that cover it; the
// files are read and located on `jobs` threads.
std::vector<std::vector<std::string>> CoveringRules(const std::vector<rules::Rule>& rules,
                                                    const std::vector<Finding>& findings,
                                                    const std::vector<size_t>& which, const arch::Arch& target,
                                                    int jobs);

// Each root cause a shipped rule edits names the rule (`covered_by`), so the report can say what
// `archpatch apply` would fix. Nothing when no rules are shipped.
void MarkCoveredByShippedRules(std::vector<gate::Group>& groups, const std::vector<Finding>& findings,
                               const arch::Arch& target, int jobs);
// The same with the rules already loaded (audit loads them while the scan runs).
void MarkCoveredByRules(std::vector<gate::Group>& groups, const std::vector<Finding>& findings,
                        const std::vector<rules::Rule>& rules, const arch::Arch& target, int jobs);
// MarkCoveredByRules in two steps: which rules cover each group's root (reads the groups' roots
// and the findings' places only, so audit runs it beside the other marks of the groups), then
// `covered_by` set from that.
std::vector<std::vector<std::string>> CoveringRootCauses(const std::vector<gate::Group>& groups,
                                                         const std::vector<Finding>& findings,
                                                         const std::vector<rules::Rule>& rules,
                                                         const arch::Arch& target, int jobs);
void MarkCovered(std::vector<gate::Group>& groups, std::vector<std::vector<std::string>> covered);

}  // namespace archpatch::plan
