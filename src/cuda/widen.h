// WidenCondition: rewrite a `#if` condition so that it also holds for the target arches, touching
// as few bytes as possible (apply's cuda-gate edits). Three strategies, chosen by the rule:
//   drop-bound:  remove the conjunct(s) that exclude a target (`&& (__CUDA_ARCH__ < 1200)`)
//   raise-bound: move the excluding literal just far enough (`< 1200` -> `< 1220`)
//   or-target:   append `|| (__CUDA_ARCH__ == 1200)` alternatives for the targets
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "arch/arch.h"
#include "cuda/macro_env.h"
#include "util/result.h"

namespace archpatch::cuda {

enum class WidenStrategy { kDropBound, kRaiseBound, kOrTarget };

// "drop-bound" | "raise-bound" | "or-target".
Result<WidenStrategy> ParseWidenStrategy(std::string_view text);
std::string_view WidenStrategyName(WidenStrategy strategy);

// Returns the new condition text that is true for every arch in `targets` (device passes under
// `env`), leaving every other byte (spacing, parentheses, comments) as written. The result
// re-parses and evaluates true for each target. Errors when the strategy cannot widen this
// condition (e.g. raise-bound on a condition without a comparison to move). A condition that
// already holds for every target comes back unchanged.
Result<std::string> WidenCondition(std::string_view text, WidenStrategy strategy,
                                   const std::vector<arch::Arch>& targets, const MacroEnv& env);

}  // namespace archpatch::cuda

namespace archpatch::cuda {

// The arches of the table (device passes under `env`) for which `after` is true but `before` is
// not: the blast radius of an edit, for plans to show. Errors when either text does not parse.
Result<std::vector<arch::Arch>> NewlyTrue(std::string_view before, std::string_view after, const MacroEnv& env);

}  // namespace archpatch::cuda
