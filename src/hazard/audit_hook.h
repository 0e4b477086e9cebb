// The hazard checks inside `archpatch audit`: a pass of scan::Audit (AuditOptions::after_cuda_file).
// Every CUDA/C++ file with a cuda-gate finding is checked on the worker that scanned it, from the
// scan's own tokens (one read and one lex per file): its gate findings get the widen verdict
// (Finding::widen) and its kernels that compile to an empty body on the target become findings of
// kind empty-kernel (error). Both carry Finding::explain: plain-words lines for people.
#pragma once

#include "scan/audit.h"

namespace archpatch::hazard {

// The pass for an audit run with `options` (target, --against, macro environment). It starts
// reading the feature table (hazard::DefaultFeatures) beside the scan.
scan::FilePass HazardPass(const scan::AuditOptions& options);

// Throws Fatal when the feature table cannot be read, after the scan: the pass then checked no
// file, and its report would lack every widen verdict.
void RequireFeatures();

}  // namespace archpatch::hazard
