// libFuzzer target for the binary stage: ELF host files, cubins, fatbins (compressed entries
// included) and PTX headers. Any input must give a result or an Error, never a crash.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "binary/cubin.h"
#include "binary/fatbin.h"
#include "binary/ptx.h"
#include "binary/reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace archpatch::binary;
  std::vector<uint8_t> bytes(data, data + size);
  ReadOptions deep;
  deep.scan_rodata = true;
  (void)ReadBinaryBytes(bytes, "fuzz", deep);
  std::vector<uint8_t> again(data, data + size);  // libelf may have converted the first copy
  std::vector<std::string> warnings;
  for (const Fatbin& fatbin : ParseFatbinSequence(again, warnings)) {
    for (const FatbinEntry& entry : fatbin.entries) (void)EntryPayload(again, entry);
  }
  (void)ReadCubinInfo(again);
  (void)ParsePtxHeader(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
