// Widening a gate's literal so that it admits more arches: the edit a Python-gate rule makes.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "arch/arch.h"
#include "gate/finding.h"
#include "util/result.h"

namespace archpatch::python {

// What to add for a target whose gate holds majors or (major, minor) pairs.
enum class AddMode {
  kMajor,       // add the target's major: [9, 10] -> [9, 10, 12]
  kCapability,  // add the target's (major, minor) pair: [(9, 0)] -> [(9, 0), (12, 0)]
};

// The replacement text for the literal of `finding` (the bytes `finding.span` covers in
// `contents`) such that the gate includes every target. The literal's style is kept: brackets,
// spacing, trailing comma, quote style; arch strings get the target's name in the same form
// ("sm_100a" -> add "sm_120a", "10.0a" -> "12.0a", "100" -> "120"); integer compute capabilities
// get the number (100 -> add 120); majors get the major (kMajor) and pair lists the pair. A target
// already included adds nothing, so with nothing to add the same text comes back.
// Errors: the span does not hold a literal this function can widen (a comparison like
// `major >= 10`, a scalar `== 10`, a finding from another scanner).
Result<std::string> WidenLiteral(std::string_view contents, const Finding& finding,
                                 const std::vector<arch::Arch>& targets, AddMode mode);

}  // namespace archpatch::python
