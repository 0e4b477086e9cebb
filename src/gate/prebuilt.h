// Precompiled artifacts a gate's module loads (gate::PrebuiltArtifacts, filled by
// scan/prebuilt_link.h): whether they run on the target, and the words audit, apply and suggest
// print about them (docs/audit.md, "Precompiled artifacts").
#pragma once

#include <string>
#include <vector>

#include "gate/finding.h"

namespace archpatch::gate {

// Whether the artifacts a module loads run on the target: true when one group has an image for
// it, false when every group's arches are known and none has, unknown otherwise (none linked too).
Tri PrebuiltRuns(const std::vector<PrebuiltArtifacts>& links);

// One group in words: "TRTLLM_GEN_BMM (artifact group declared at F:L, named by gen_x; sm_100f:
// named so by its 12 installed files, e.g. PATH)".
std::string DescribePrebuilt(const PrebuiltArtifacts& link);

// The plain-words sentence next to a gate: what widening it would load, for `target`.
std::string PrebuiltSentence(const std::vector<PrebuiltArtifacts>& links, const std::string& target);

}  // namespace archpatch::gate
