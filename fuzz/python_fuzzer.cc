// libFuzzer target for the Python scanner: tokenizer, scope/literal layer, gate recogniser and
// WidenLiteral must never crash, hang or read out of bounds, whatever the bytes. Invalid Python
// is an Error, never an exception.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "arch/arch.h"
#include "python/scanner.h"
#include "python/widen.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view src(reinterpret_cast<const char*>(data), size);
  const std::vector<archpatch::arch::Arch>& arches = archpatch::arch::AllArches();
  archpatch::Result<std::vector<archpatch::Finding>> found = archpatch::python::ScanPython("fuzz.py", src, arches);
  if (!found.ok()) return 0;
  const std::vector<archpatch::arch::Arch> targets = {arches.back(), arches.front()};
  for (const archpatch::Finding& f : *found) {
    if (f.span.begin > f.span.end || f.span.end > src.size()) __builtin_trap();  // spans must stay in the file
    for (auto mode : {archpatch::python::AddMode::kMajor, archpatch::python::AddMode::kCapability}) {
      (void)archpatch::python::WidenLiteral(src, f, targets, mode);
    }
  }
  return 0;
}
