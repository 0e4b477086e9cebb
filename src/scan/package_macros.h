// Feature macros across the files of a package: CUTLASS defines CUTE_ARCH_TCGEN05_*_ENABLED in
// cute/arch/config.hpp under `#if defined(__CUDA_ARCH_FEAT_SM100_ALL) ...` and tests them in dozens
// of other headers. One file alone sees such a macro as unknown; the audit collects every #define
// with where it takes effect (cuda::CudaGates::definitions), resolves the macros whose definition
// depends on the arch, and scans the files that test them again with those per-arch states
// (cuda::MacroEnv::per_arch), a few rounds for macros defined from other package macros.
#pragma once

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "arch/arch.h"
#include "cuda/gates.h"
#include "cuda/macro_env.h"

namespace archpatch::scan {

using PerArchMacros = std::map<std::string, std::map<std::string, Tri>, std::less<>>;

// Per macro and arch: defined when some #define of it takes effect there, unknown when none does
// but one may, undefined otherwise. Only macros whose state differs between arches are kept (a
// macro some file defines unconditionally is defined everywhere and dropped).
PerArchMacros ResolvePackageMacros(const std::map<std::string, std::vector<cuda::MacroDefinition>>& by_file,
                                   const std::vector<arch::Arch>& arches);

}  // namespace archpatch::scan
