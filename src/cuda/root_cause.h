// Root causes: a gate whose condition tests a feature macro (`#if defined(CUTE_ARCH_MMA_SM90A_ENABLED)`)
// keeps the target out because of the gate that #defines the macro (`#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
// #define CUTE_ARCH_MMA_SM90A_ENABLED`), in the same file or another file of the package, and
// transitively. The audit reports one entry per root cause with its consequences (places), one
// class for all of them, and a widen verdict over everything the root enables: a #define block
// that switches on wgmma blocks is as unsafe to widen as those blocks. Pure functions over the
// audit's findings (as cuda/gates.cc and hazard/audit_hook.cc fill them).
#pragma once

#include <string>
#include <vector>

#include "cuda/exclusion.h"
#include "gate/finding.h"

namespace archpatch::cuda {

// The macro names a finding's gate tests: identifiers of its effective condition that are not
// arch macros, keywords or `defined`.
std::vector<std::string> TestedMacros(const Finding& finding);

// For each finding, the index of the finding whose #define block it follows from (transitively),
// or its own index. A definer counts only when it is itself a finding (it keeps the target out);
// one in the same file before the gate wins over one elsewhere.
std::vector<size_t> LinkRootCauses(const std::vector<Finding>& findings);

struct WidenClosure {
  gate::WidenSafety verdict = gate::WidenSafety::kSafe;
  std::vector<std::string> reasons;   // one sentence each: what the root enables and needs
  std::vector<std::string> features;  // ids of the instructions the target lacks (wgmma, ...)
  // The target's arch-specific variant ("sm_120a") when it has every instruction the blocks need:
  // built for it, not for the plain target, they would run. "" when one of them would not.
  std::string available_on_variant;
};

struct RootCause {
  size_t root = 0;             // index into the findings
  std::vector<size_t> places;  // the consequences, root excluded, in findings order
  ExclusionClass klass = ExclusionClass::kEmpty;
  std::string reason;  // why this class
  WidenClosure widen;
};

// One RootCause per root, in findings order (sorted by file, line). Classes: the most important
// class among the root (unless it only #defines) and its places; hardware-exclusive when the closure
// needs an instruction the target lacks (never for legacy). Findings without a class (runtime and
// Python gates) read as refusals.
std::vector<RootCause> CollectRootCauses(const std::vector<Finding>& findings);

// Gives every finding without a class (nv-target, runtime and Python gates) one from its verdict:
// the first verdict is the target's. A check macro that fails on the target is a refusal; a gate
// that lets exactly one other chip through is other-arch (an arch -> name table, a path for that
// chip); otherwise a refusal (runtime and Python) or a fast path (<nv/target> branches).
void AssignClasses(std::vector<Finding>& findings);

// The class a finding carries, refusal when it has none.
ExclusionClass ClassOf(const Finding& finding);

}  // namespace archpatch::cuda
