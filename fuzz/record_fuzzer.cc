// libFuzzer target for RECORD (the installed-files CSV of a dist-info folder, written by
// whatever installed the package): any bytes parse into entries or an Error with file:line.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "env/environment.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)archpatch::env::ParseRecord(text, "fuzz/RECORD");
  return 0;
}
