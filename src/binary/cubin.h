// Standalone CUDA ELF images (.cubin, and the ELF payloads of fatbin entries): which exact
// arch the machine code is for. nvcc 13 writes ELF OS/ABI 0x41 (ABI version 8) with the sm in
// e_flags bits 8-15; CUDA 12 and older wrote OS/ABI 0x33 (ABI version 7) with the sm in bits
// 0-7 and EF_CUDA_ACCELERATORS (0x800) for sm_90a. Neither stores `f`: nvcc 13 marks `a` in the
// .nv.compat attribute 9, and both a and f appear in the ptxas command line nvcc records in
// the .note.nv.tkinfo note ("-arch sm_120f -m 64"), which is read when present.
#pragma once

#include <cstdint>
#include <span>

#include "arch/arch.h"
#include "util/result.h"

namespace archpatch::binary {

inline constexpr uint16_t kEmCuda = 190;

struct CubinInfo {
  arch::Arch arch;
  bool relocatable = false;  // ET_REL: an -rdc object waiting for a device link
};

// Whether the bytes start like an ELF file with e_machine EM_CUDA.
bool IsCubin(std::span<const uint8_t> bytes);

// Reads the arch of a CUDA ELF image held in memory. Bounds-checked throughout.
Result<CubinInfo> ReadCubinInfo(std::span<const uint8_t> bytes);

}  // namespace archpatch::binary
