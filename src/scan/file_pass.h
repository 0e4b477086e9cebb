// The per-file pass of an audit (AuditOptions::after_cuda_file: the hazard checks), run once per
// CUDA/C++ file with a kept cuda-gate finding, after every round of package macros has settled.
// Run inside each round instead, a file the later rounds scan again was checked once per round:
// the CUTLASS headers that test CUTE_ARCH_* macros three times, and the checks cost more than the
// scan. Here such a file is read and lexed a second time instead (the lexer runs at about 300
// MB/s; the checks at a tenth of that).
#pragma once

#include <set>
#include <string>

#include "cuda/macro_env.h"
#include "scan/audit.h"

namespace archpatch::scan {

// The macro environment each file's findings were evaluated in: the last round's for the files
// it scanned again, the options' for the rest.
struct FinalEnvironment {
  const cuda::MacroEnv& first;
  const cuda::MacroEnv& later;
  const std::set<std::string>& scanned_again;
  const cuda::MacroEnv& Of(const std::string& file) const { return scanned_again.count(file) ? later : first; }
};

// Calls options.after_cuda_file for each such file of `report` (on options.jobs workers) with its
// findings, leaving report.findings sorted and adding the pass's warnings.
void RunFilePass(const AuditOptions& options, const FinalEnvironment& env, AuditReport& report);

}  // namespace archpatch::scan
