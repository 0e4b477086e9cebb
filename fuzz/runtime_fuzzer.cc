// libFuzzer target for the C++ runtime-check reader: the token pass, the file's check-building
// macros (expanded one level) and its constants must never crash, hang or read out of bounds,
// and every finding must point into the file, whatever the bytes.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "arch/arch.h"
#include "cuda/runtime_gates.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view src(reinterpret_cast<const char*>(data), size);
  // A folder that does not exist: the include closure reads nothing from the machine.
  const std::string file = "/nonexistent/fuzz/launcher.cu";
  for (const archpatch::Finding& f : archpatch::cuda::FindRuntimeGates(file, src, archpatch::arch::AllArches())) {
    if (f.span.begin > f.span.end || f.span.end > src.size() || f.line < 1) __builtin_trap();
  }
  return 0;
}
