// libFuzzer target for the #if condition parser and evaluator: any bytes must parse or fail with
// an Error, and evaluate (per arch, with and without --undef-unknown) without crashing or hanging.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "arch/arch.h"
#include "cuda/condition.h"
#include "cuda/widen.h"

using namespace archpatch;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  Result<cuda::Condition> condition = cuda::ParseCondition(text);
  if (!condition) return 0;
  static const std::vector<arch::Arch> arches = {*arch::ParseArch("sm_90a"), *arch::ParseArch("sm_120")};
  cuda::MacroEnv env;
  cuda::EvaluatePerArch(*condition, arches, env);
  env.undef_unknown = true;
  env.defines["X"] = "__CUDA_ARCH__ + 1";  // forces the macro-expansion path
  env.defines["E"] = "";
  cuda::EvaluatePerArch(*condition, arches, env);
  cuda::Identifiers(*condition);
  cuda::MentionsArchMacro(*condition);
  if (size < 200) {
    (void)cuda::WidenCondition(text, cuda::WidenStrategy::kDropBound, {arches[1]}, env);
    (void)cuda::WidenCondition(text, cuda::WidenStrategy::kOrTarget, {arches[1]}, env);
  }
  return 0;
}
