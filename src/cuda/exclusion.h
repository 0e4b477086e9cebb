// Exclusion semantics (docs/audit.md "What counts as an exclusion"): a directive branch that is
// false on the target keeps it out only when the branch the target takes instead holds less than
// what another arch gets: nothing, a refusal (#error, a trap, an "ERROR ... Aborting" printf), or a
// generic path where others get a specialised one. A branch only older arches take while the
// target takes one with code is a legacy fallback; a branch exactly one other chip takes is that
// chip's workaround. Neither excludes the target. Pure functions over one file's directive scan.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "arch/arch.h"
#include "cuda/directives.h"
#include "cuda/tokens.h"

namespace archpatch::cuda {

// What a branch's block holds once its directive lines are set aside.
enum class BlockHolds {
  kNothing,  // whitespace and comments only
  kDefines,  // only preprocessor lines, at least one #define (a feature-macro block)
  kRefusal,  // a short block that stops: #error, static_assert(false...), trap, abort, an error printf
  kCode,     // anything else
};
std::string_view BlockHoldsName(BlockHolds holds);  // "nothing", "defines", "refusal", "code"

// The block's bytes [block.begin, block.end) of `contents`, whose tokens are `tokens`.
BlockHolds WhatBlockHolds(const std::vector<Token>& tokens, std::string_view contents, ByteSpan block);

// Every branch's BlockHolds, in scan order.
std::vector<BlockHolds> AllBlockHolds(const DirectiveScan& scan, const std::vector<Token>& tokens,
                                      std::string_view contents);

// Ordered from the most to the least important for a person deploying on the target.
enum class ExclusionClass {
  kRefusal,            // the target gets an error, a trap or a refusal
  kEmpty,              // the target gets nothing where others get code (a kernel or block left out)
  kFastPath,           // the target gets a generic path where others get a specialised one
  kHardwareExclusive,  // the code needs an instruction the target lacks (rules/features.yaml)
  kLegacy,             // only older arches take it; the target takes a branch with code
  kOtherArch,          // one other chip's path, or a refusal/empty branch the target avoids
};
std::string_view ExclusionClassName(ExclusionClass c);  // "refusal", "empty", "fast-path", ...
// The inverse of ExclusionClassName; kOtherArch for an unknown name.
ExclusionClass ExclusionClassFromName(std::string_view name);
// Refusal, empty, fast-path and hardware-exclusive keep the target out; legacy and other-arch do not.
bool KeepsTargetOut(ExclusionClass c);

// The branch of a chain one arch takes: `branch` -1 when it takes none (no #else), `certain`
// false when an earlier branch's verdict is unknown there.
struct TakenBranch {
  int branch = -1;
  bool certain = true;
  BlockHolds holds = BlockHolds::kNothing;
};
TakenBranch BranchTaken(const DirectiveScan& scan, const BranchVerdicts& verdicts,
                        const std::vector<BlockHolds>& holds, int chain_member, size_t arch_index);

struct Exclusion {
  ExclusionClass klass = ExclusionClass::kEmpty;
  std::string reason;  // one clause for people: "sm_120 takes the #else at line 12 (a refusal)"
  TakenBranch target;  // what the target takes instead
};

// The class of branch `branch` (false on arches[target]) for arches[target]. Hardware-exclusive
// is never returned here: it needs the hazard checks (hazard/), which upgrade the class later.
// `chain_is_whole_body`: the chain is the whole body of the function it sits in (or it sits at file
// level); when it is only part of one, a target that takes no branch still runs the code around it.
Exclusion ClassifyExclusion(const DirectiveScan& scan, const BranchVerdicts& verdicts,
                            const std::vector<BlockHolds>& holds, int branch,
                            const std::vector<arch::Arch>& arches, size_t target = 0,
                            bool chain_is_whole_body = true);

// Whether the chain holding `branch` fills its braces: the code token before its #if is '{' and the
// one after its #endif is '}' (comments and preprocessor lines skipped).
bool ChainFillsItsBraces(const DirectiveScan& scan, int branch, const std::vector<Token>& tokens,
                         std::string_view contents);

}  // namespace archpatch::cuda
