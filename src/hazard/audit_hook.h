// The hazard checks inside `archpatch audit`: one call after scan::Audit. Every CUDA/C++ file
// with a cuda-gate finding is checked once more: its gate findings get the widen verdict
// (details "widen", "needs", "uses", "unseen_calls", "widen_reason") and its kernels that
// compile to an empty body on the target become findings of kind "empty-kernel" (error).
// Both carry details "explain": plain-words lines for the human report.
#pragma once

#include "cuda/macro_env.h"
#include "scan/audit.h"

namespace archpatch::hazard {

// `jobs`: worker threads (0: one per core), as scan::AuditOptions::jobs.
void AugmentAudit(scan::AuditReport& report, const cuda::MacroEnv& env, int jobs = 0);

}  // namespace archpatch::hazard
