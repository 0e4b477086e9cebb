// Runtime gates in host C++ read from tokens alone: every function body, so that a missing header
// never hides a check (a compiler's parse of the file without the package's headers drops the
// body of every function whose class or parameter types it cannot resolve: `void
// FusedMoeLauncher::init_common(...)`, `at::Tensor&` parameters). It finds:
// - check macros (`TORCH_CHECK(cond, ...)`, `TVM_FFI_ICHECK_EQ(major, 10)`, `FLASHINFER_CHECK`),
// - `if (cond)` whose statement refuses (return; / return false / nullptr / an error code,
//   throw, continue, an error macro: `TORCH_CHECK(false, ...)`, `*_THROW`, `UNREACHABLE`, abort),
// - dispatch chains `if (a) ... else if (b) ... else <refusal>`: each condition enables,
// - an object of a checking type built from the condition (`ArchRequirement{major >= 9}`),
// - calls of the file's own check-building macros, through their expansion (check_macros.h),
// and evaluates the condition per arch: capability names and getters (`major`, `props.major`,
// `dprops->minor`, `getSMVersion()`, `get_arch_major()`, `std::get<0>(device_props)`),
// arithmetic (`sm / 10 == 10`, `major * 10 + minor >= 100`), booleans computed earlier in the
// body (`bool is_sm90 = ...;`), and integer constants of the file (a function's own only inside
// it, `#define NAME 90` too) and of its shared headers (header_constants.h).
// See docs/audit.md, "C++ runtime checks".
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "arch/arch.h"
#include "cuda/functions.h"
#include "cuda/header_constants.h"
#include "cuda/runtime_eval.h"
#include "cuda/tokens.h"
#include "gate/finding.h"

namespace archpatch::cuda {

// `view`: runtime_detail::MakeView(contents, tokens).
std::vector<Finding> FindRuntimeGatesInTokens(const std::string& file, std::string_view contents,
                                              const std::vector<arch::Arch>& arches, const std::vector<Token>& tokens,
                                              const runtime_detail::View& view, const ConstantLookup& constants,
                                              LazyBodies& bodies);

}  // namespace archpatch::cuda
