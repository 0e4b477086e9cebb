// The hazard checks inside `archpatch audit`: a pass of scan::Audit (AuditOptions::after_cuda_file).
// Every CUDA/C++ file with a cuda-gate finding is checked on the worker that scanned it, from the
// scan's own tokens (one read and one lex per file): its gate findings get the widen verdict
// (Finding::widen) and its kernels that compile to an empty body on the target become findings of
// kind empty-kernel (error). Both carry Finding::explain: plain-words lines for people.
#pragma once

#include "scan/audit.h"

namespace archpatch::hazard {

// The pass for an audit run with `options` (target, --against, macro environment).
scan::FilePass HazardPass(const scan::AuditOptions& options);

}  // namespace archpatch::hazard
