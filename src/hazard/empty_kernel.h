// Empty kernels: a `__global__` function whose body, for some arch, is nothing but declarations
// and returns because every statement sits in a preprocessor branch that is false there. Such a
// kernel launches fine and returns at once: no error, garbage results. FlashInfer's allreduce
// kernels did exactly that on SM12x once only the Python gate had been widened.
//
// libclang's preprocessor evaluates one configuration per parse, so the check groups the arches
// by which branches inside the kernel's body they take (from the branch verdicts) and parses the
// file once per group with that arch's device macros; the surviving tokens outside declarations
// and returns are the kernel's real code.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "arch/arch.h"
#include "hazard/branches.h"
#include "hazard/source.h"
#include "util/result.h"
#include "util/tri.h"

namespace archpatch::hazard {

struct KernelBody {
  std::string name;
  int line = 0, column = 0;
  size_t body_begin = 0, body_end = 0;
  std::vector<Tri> has_code;  // per arch: true real code, false empty, unknown can't tell
  std::vector<int> gates;     // indices of the branches inside the body
  // QuickKernels: `has_code` is what the parses would give, read from the tokens alone (see
  // there), so AnalyzeKernels is not needed for this kernel.
  bool settled = false;
};

// Every kernel of the file (as the host parse `host` sees them) with its per-arch verdict.
// `branches` come from FindBranches over the same arches.
std::vector<KernelBody> AnalyzeKernels(const std::string& path, std::string_view contents, const ParsedSource& host,
                                       const std::vector<Branch>& branches, const std::vector<arch::Arch>& arches);

// What the host parse for AnalyzeKernels reads: `contents` with every outermost function body that
// holds no directive blanked (cuda/blank_bodies.h). A kernel without a branch in its body is
// skipped, whatever else it holds, and no other function matters to the check. `source` as
// FromScan or LexSource give it.
std::string HostParseBytes(std::string_view contents, const ParsedSource& source);

// The same verdicts from tokens alone (no parse, for every file of an audit): a kernel has code on
// an arch when a surviving statement of its body is neither a declaration nor a return (read from
// its first tokens). `source` may come from LexSource. Findings are confirmed with AnalyzeKernels,
// unless the tokens settle every arch's verdict as a parse would give it (`settled`): the kernel
// is at file level, the body names nothing the file #defines (no expansion can change what the
// parse sees), and on each arch a branch inside the body is unknown (the parse is not asked
// then either), no token but `;` survives, or a surviving statement is plainly code (`if`, a
// call, an assignment: never a declaration). Loading libclang for the parse cost more than the
// rest of an audit of FlashInfer's trtllm_allreduce.cuh, whose kernels are settled.
std::vector<KernelBody> QuickKernels(std::string_view contents, const ParsedSource& source,
                                     const std::vector<Branch>& branches, size_t arch_count);

}  // namespace archpatch::hazard
