// Blast radius: the arches whose compiled code an edit changes. Dropping `&& __CUDA_ARCH__ < 1200`
// turns the block on for sm_120 but also for sm_121 and every later arch; OR-ing in
// `|| __CUDA_ARCH__ == 1200` changes sm_120 alone. Dry runs show it, the manifest records it, and
// the compiler proof checks the compiler agrees.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "arch/arch.h"
#include "cuda/macro_env.h"
#include "util/result.h"
#include "util/tri.h"

namespace archpatch::hazard {

// One arch whose verdict changes, with the values before and after.
struct VerdictChange {
  std::string arch;  // "sm_121"
  Tri before = Tri::kUnknown;
  Tri after = Tri::kUnknown;
};

// The arches of `arches` (table order) where the condition's value differs. Errors name the
// condition that does not parse.
Result<std::vector<VerdictChange>> BlastRadius(std::string_view before_condition, std::string_view after_condition,
                                               const cuda::MacroEnv& env,
                                               const std::vector<arch::Arch>& arches = arch::AllArches());

// For a whole file: the arches where any branch's effective verdict differs between the two
// versions (edits that change conditions keep the branch structure; a changed structure counts
// every arch). `edit_begin`/`edit_end` narrow it to the chain whose condition holds those bytes
// of `before` (npos: the whole file).
std::vector<VerdictChange> FileBlastRadius(const std::string& path, std::string_view before, std::string_view after,
                                           const cuda::MacroEnv& env,
                                           const std::vector<arch::Arch>& arches = arch::AllArches(),
                                           size_t edit_begin = std::string_view::npos,
                                           size_t edit_end = std::string_view::npos);

// Just the names: {"sm_120", "sm_120a", ...}.
std::vector<std::string> ArchNames(const std::vector<VerdictChange>& changes);

}  // namespace archpatch::hazard
