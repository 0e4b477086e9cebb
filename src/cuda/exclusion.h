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
#include "gate/finding.h"
#include "util/shared_loops.h"

namespace archpatch::cuda {

// What a block holds and the classes are the gate model's (gate/finding.h).
using gate::BlockHolds;
using gate::BlockHoldsName;
using gate::ExclusionClass;
using gate::ExclusionClassFromName;
using gate::ExclusionClassName;
using gate::KeepsTargetOut;

// The block's bytes [block.begin, block.end) of `contents`, whose tokens are `tokens`.
BlockHolds WhatBlockHolds(const std::vector<Token>& tokens, std::string_view contents, ByteSpan block);

// Every branch's BlockHolds, in scan order; on `loops`' idle threads too when it is given.
std::vector<BlockHolds> AllBlockHolds(const DirectiveScan& scan, const std::vector<Token>& tokens,
                                      std::string_view contents, SharedLoops* loops = nullptr);

// The branch of a chain one arch takes: `branch` -1 when it takes none (no #else), `certain`
// false when an earlier branch's verdict is unknown there.
struct TakenBranch {
  int branch = -1;
  bool certain = true;
  BlockHolds holds = BlockHolds::kNothing;
};
TakenBranch BranchTaken(const DirectiveScan& scan, const BranchVerdicts& verdicts, const std::vector<BlockHolds>& holds,
                        int chain_member, size_t arch_index);

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
                            const std::vector<BlockHolds>& holds, int branch, const std::vector<arch::Arch>& arches,
                            size_t target = 0, bool chain_is_whole_body = true);

// Whether the chain holding `branch` fills its braces: the code token before its #if is '{' and the
// one after its #endif is '}' (comments and preprocessor lines skipped).
bool ChainFillsItsBraces(const DirectiveScan& scan, int branch, const std::vector<Token>& tokens,
                         std::string_view contents);

}  // namespace archpatch::cuda
