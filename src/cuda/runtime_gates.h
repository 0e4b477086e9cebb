// Runtime gates in host C++: checks that compare a GPU capability (major, minor, sm, sm_version,
// mSM, arch, cc, compute_capability, getSMVersion(), ...) with integer literals or constants and
// refuse or skip: arguments of check macros (TORCH_CHECK, FLASHINFER_CHECK, TVM_FFI_ICHECK_EQ,
// ...) and `if (cond) return false; / return; / throw ...; / continue;`. Read from the file's
// tokens (runtime_tokens.h), with the constants of the file and of the headers it includes
// (header_constants.h) and the check-building macros it defines (check_macros.h). See
// docs/audit.md for the evaluation rule.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "arch/arch.h"
#include "cuda/tokens.h"
#include "gate/finding.h"

namespace archpatch::cuda {

// Findings of kind "cpp-runtime-gate"; verdict true = the check lets that arch through.
std::vector<Finding> FindRuntimeGates(const std::string& file, std::string_view contents,
                                      const std::vector<arch::Arch>& arches);

// The same with the file's tokens already at hand (cuda::Tokenize).
std::vector<Finding> FindRuntimeGates(const std::string& file, std::string_view contents,
                                      const std::vector<arch::Arch>& arches, const std::vector<Token>& tokens);

// Whether an identifier of the tokens is a capability name that may be a value: not a scope
// (`arch::`), a type before a declared name (`UMMA::Major major_a`), a namespace's name or in an
// #include. Without one the token pass can find no check (FindRuntimeGates returns nothing), so
// the byte prefilter may skip the file's runtime analysis only then.
bool NamesCapabilityValue(const std::vector<Token>& tokens, std::string_view contents);

// Whether `name` reads as a GPU capability variable or getter: after dropping '_' and an `m`
// member prefix (mSM), case-insensitively one of major, minor, sm, smversion, getsmversion, arch,
// cc, computecapability, ... (runtime_gates.cc has the list). Every accepted name contains one
// of CapabilityNeedles(), which the byte prefilter searches for.
bool IsCapabilityName(std::string_view name);

// ASCII upper case, for the case-blind name tests of the runtime passes.
std::string UpperCase(std::string_view s);

// Whether a call or macro named so checks its argument and fails when false: TORCH_CHECK,
// TVM_FFI_ICHECK_EQ, FLASHINFER_ASSERT, ... `assert` itself is left out: it is compiled away under
// NDEBUG, which release wheels and JIT builds define, so it checks the authors' own
// configurations, never a user's GPU (FlashInfer's `assert(sm_version < 90 && "Invalid cutlass
// GEMM config")` inside a toString).
bool IsCheckName(std::string_view name);

// Whether a runtime finding tests a configuration rather than the device: a value reached
// through one (`inputs.gemm_config.sm_version`).
bool IsConfigSanityCheck(const Finding& f);
const std::vector<std::string_view>& CapabilityNeedles();
// The normal forms IsCapabilityName accepts (lowercase, no '_', no m prefix).
const std::vector<std::string_view>& CapabilityNames();

}  // namespace archpatch::cuda
