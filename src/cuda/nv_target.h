// <nv/target> gates: NV_IF_TARGET(Q, (A)[, (B)]), NV_IF_ELSE_TARGET(Q, (A), (B)) and
// NV_DISPATCH_TARGET(Q1, (A1), Q2, (A2), ...), found in the file's tokens and evaluated per arch
// with the semantics of CCCL's nv/detail/__target_macros:
//   NV_PROVIDES_SM_X       __CUDA_ARCH__ >= X*10 (device pass)
//   NV_IS_EXACTLY_SM_X     __CUDA_ARCH__ == X*10
//   NV_HAS_FEATURE_SM_Xa   __CUDA_ARCH__ >= X*10 && defined(__CUDA_ARCH_FEAT_SMX_ALL)
//   NV_HAS_FEATURE_SM_Xf   __CUDA_ARCH_FAMILY_SPECIFIC__ == X*10
//   NV_IS_DEVICE / NV_IS_HOST / NV_ANY_TARGET / NV_NO_TARGET
// NV_DISPATCH_TARGET takes the first query that holds, like an #if/#elif chain.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "arch/arch.h"
#include "cuda/macro_env.h"
#include "cuda/tokens.h"
#include "gate/finding.h"

namespace archpatch::cuda {

// The #if condition equivalent to one target query ("NV_PROVIDES_SM_90" ->
// "defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900"), or nullopt for a name it does not know.
std::optional<std::string> NvTargetCondition(std::string_view query);

// One Finding per branch (kind cuda-gate, form gate::NvTargetForm); the verdict is the
// branch's effective one (its query, and for later branches the negation of earlier ones).
std::vector<Finding> FindNvTargetGates(const std::string& file, std::string_view contents,
                                       const std::vector<Token>& tokens, const std::vector<arch::Arch>& arches,
                                       const MacroEnv& env);
// The same with the file's line index at hand (the gate scan's, shared by its passes).
std::vector<Finding> FindNvTargetGates(const std::string& file, std::string_view contents,
                                       const std::vector<Token>& tokens, const std::vector<arch::Arch>& arches,
                                       const MacroEnv& env, const LineIndex& lines);

}  // namespace archpatch::cuda
