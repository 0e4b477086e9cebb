// The prebuilt-without-image check of apply (docs/hazards.md, "Commands"): a rule
// edit that touches a gate whose module loads precompiled artifacts (scan/prebuilt_link.h) with
// no image for one of the rule's targets is a hazard of severity error, naming the artifact groups
// and their installed binaries: apply refuses it (exit 3) unless --allow-hazard, as every hazard.
// Artifacts whose arches archpatch cannot see (fetched at run time, not installed) give a warning.
#pragma once

#include <vector>

#include "apply/snapshot.h"
#include "gate/finding.h"

namespace archpatch::apply {

// The hazards of every staged file: the package of each edited file is indexed (its Python
// sources) with the rest of the rule's root searched for installed artifacts, once per package.
std::vector<Finding> PrebuiltHazards(const StagedPlan& staged);

}  // namespace archpatch::apply
