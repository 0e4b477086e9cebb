// From a root cause to the rule edit that selects it: a cuda-gate edit (the macro its condition
// names, its scope, the first strategy that admits the target) or a python-gate edit (its scope,
// its name, majors or (major, minor) pairs), located on the installed bytes as apply would.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "arch/arch.h"
#include "plan/locate.h"
#include "rules/rule.h"
#include "suggest/candidate.h"
#include "util/result.h"

namespace archpatch::suggest {

struct ChosenEdit {
  rules::Edit edit;                 // file (relative to site-packages), action, expect
  std::vector<plan::Place> places;  // what it selects in the installed file, satisfied ones included
  std::vector<std::string> groups;  // the root causes it widens ("G3")
};

// The places `edit` selects in `contents` (plan::LocateCudaGates / LocatePythonGates).
Result<plan::FilePlaces> LocateEdit(const rules::Edit& edit, std::string_view contents,
                                    const std::vector<arch::Arch>& targets);

// The edit that widens `c`'s root (at byte c.span_begin of `contents`) for `target`, or why there is
// none ("a C++ runtime check: write a replace edit by hand"). `expect` counts every place it selects.
Result<ChosenEdit> EditFor(const Candidate& c, const std::string& relative, std::string_view contents,
                           const arch::Arch& target);

// Whether `place` changes bytes (a place that already admits the targets does not).
bool Changes(const plan::Place& place);

}  // namespace archpatch::suggest
