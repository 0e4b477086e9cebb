// The known-unsafe refusal of apply (docs/rules.md, "The known-unsafe list"): a rule edit that
// changes a gate on rules/known-unsafe.yaml for one of the rule's targets is refused with the
// list's reason, dry runs included, and no option overrides it (the list records code that cannot
// run there: overriding would turn a clear refusal into a crash at run time).
#pragma once

#include <string>
#include <vector>

#include "apply/snapshot.h"
#include "plan/known_unsafe.h"

namespace archpatch::apply {

// Whether the edit touches the gate's bytes (an insertion counts at its position).
bool EditTouches(const plan::TextEdit& edit, const ByteSpan& gate);

// One line per refused edit: "PATH:LINE:COL: rule 'ID' edit N changes 'TEXT': do not widen: ...,
// because ... (known-unsafe ENTRY)". Empty: nothing on the list is touched.
std::vector<std::string> UnsafeEdits(const StagedPlan& staged, const std::vector<plan::KnownUnsafe>& list);

// Throws Fatal (exit 3, nothing changed) when UnsafeEdits of the shipped list is not empty, or
// when the shipped list cannot be read.
void RefuseKnownUnsafeEdits(const StagedPlan& staged);

}  // namespace archpatch::apply
