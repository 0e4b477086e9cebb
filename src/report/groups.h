// Root-cause groups (gate/group.h) as people and tools read them (docs/audit.md "Root causes and
// groups"): the human report and the `groups` array of --json; report/sarif.h prints them as SARIF.
#pragma once

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gate/group.h"
#include "report/finding.h"

namespace archpatch::report {

using gate::Group;

struct HumanOptions {
  std::string target;     // "sm_120"
  bool each = false;      // --each: every place under its root cause
  bool show_all = false;  // --show-all: legacy and other-arch groups too
  bool color = false;
  std::vector<std::string> arch_order;  // for verdicts with --each
  size_t files_scanned = 0;
};

// Grouped by distribution, then class order, one line per root cause (those on the known-unsafe
// list after the others, under one "do not widen" line per entry; hardware-exclusive: one line per
// feature), then a summary that counts root causes and places and says what to run next.
// With `each`, every place follows its root cause's line in full (report/human.h PrintFinding).
void PrintGroups(std::FILE* out, const std::vector<Group>& groups, const std::vector<Finding>& findings,
                 const HumanOptions& options);

// The `groups` array of --json (docs/audit.md), and one element of it: its value, and the text
// IndentedText prints of that value `depth` spaces deep, printed as written (the value of
// CUTLASS's group of 736 places took 0.9 ms to build and print, on one thread of --json's end).
nlohmann::ordered_json GroupJson(const Group& group, const std::vector<Finding>& findings);
std::string GroupText(const Group& group, const std::vector<Finding>& findings, unsigned depth);
nlohmann::ordered_json GroupsJson(const std::vector<Group>& groups, const std::vector<Finding>& findings);

}  // namespace archpatch::report
