// For tests: the 64-byte ELF header of a CUDA image as nvcc 13 writes it (OS/ABI 0x41, e_machine
// EM_CUDA, the sm in bits 8-15 of e_flags), enough for ReadCubinInfo and for a fake installed
// cubin. Header-only, like env/test_tree.h.
#pragma once

#include <string>

namespace archpatch::binary::testing {

inline std::string CubinHeader(int sm) {
  std::string bytes(64, '\0');
  bytes.replace(0, 4,
                "\x7f"
                "ELF");
  bytes[4] = 2;                          // ELFCLASS64
  bytes[5] = 1;                          // little-endian
  bytes[6] = 1;                          // EV_CURRENT
  bytes[7] = 0x41;                       // the CUDA OS/ABI of nvcc 13's images
  bytes[0x12] = static_cast<char>(190);  // EM_CUDA
  bytes[0x31] = static_cast<char>(sm);
  return bytes;
}

}  // namespace archpatch::binary::testing
