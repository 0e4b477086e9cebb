// The byte-level prefilter: which analyses a CUDA/C++ file needs, decided with substring searches
// before libclang sees the file. It must never drop a file the scanners would report
// (prefilter_test.cc runs both over every fixture and a generated tree). Why each needle is
// enough:
//   directives: a branch is a gate only if a condition names an arch macro (cuda::IsArchMacro:
//     __CUDA_ARCH*, NV_PROVIDES_SM_*, NV_IS_EXACTLY_SM_*, _NV_TARGET_*, NV_IS_DEVICE/HOST,
//     NV_ANY_TARGET, NV_NO_TARGET) or a macro whose value differs per arch, which only a -D
//     naming an arch macro or a #define under such a condition can make;
//   nv_target: the three macro names themselves;
//   runtime: an identifier cuda::IsCapabilityName accepts, not used as a `name::` qualifier or
//     a `namespace name` (cuda::FindRuntimeGates reads neither as a value).
// No kind looks at the names of an `#include` line (its path is no condition and no value) or of
// a comment that opens a line (`//`, or `/*` up to its `*/`), outside a spliced line and in a file
// without raw strings; a comment after code on its line is read like code.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "cuda/gates.h"
#include "cuda/macro_env.h"

namespace archpatch::scan {

class Prefilter {
 public:
  explicit Prefilter(const cuda::MacroEnv& env);
  cuda::GateKinds Check(std::string_view contents) const;
  // Check, stopped once the directives are known to be needed (the first read needs no more of
  // a file it lexes ahead: a thread beside the lexing one looks for the rest). `complete` says whether the
  // kinds are Check's: false when nv_target and runtime were not looked for past that name.
  cuda::GateKinds CheckDirectivesFirst(std::string_view contents, bool& complete) const;

 private:
  cuda::GateKinds Scan(std::string_view contents, bool until_directives, bool& complete) const;

  std::vector<std::string> extra_names_;  // -D names whose value names an arch macro
};

}  // namespace archpatch::scan
