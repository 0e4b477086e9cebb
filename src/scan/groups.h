// From the audit's findings to root-cause groups (gate/group.h): classes for every finding
// (cuda/root_cause.h AssignClasses), root causes linked through #define blocks, and for each group
// its distribution and what it switches off. Each consequence's finding gets its `root` (the
// group and where its root cause is) so --json readers can follow the link.
#pragma once

#include <string>
#include <vector>

#include "gate/finding.h"
#include "gate/group.h"

namespace archpatch::scan {

// `paths`: the PATHs audited (the distribution of a finding outside any site-packages folder is the
// PATH it lies under). Groups come in report order: distribution, class, file, line; ids G1, G2, ...
std::vector<gate::Group> BuildGroups(std::vector<Finding>& findings, const std::vector<std::string>& paths);

// The distribution a file belongs to: the folder under site-packages (dist-info names folded to the
// import name as written), else the audited PATH that holds it, else its first path component.
std::string DistributionOf(const std::string& file, const std::vector<std::string>& paths);

// What a root cause switches off, for people: "kernel k1, k2", "function fma", "module gen_x" (a
// Python def whose name starts with gen_ builds a JIT module), else "file NAME".
std::string SwitchesOff(const Finding& root);

}  // namespace archpatch::scan
