// Host ELF files (shared objects, executables): where their fatbins are.
//  1. .nv_fatbin (the modules the runtime registers) and __nv_relfatbin (-rdc objects kept for
//     a later device link; listed as relocatable).
//  2. fatbins a .nvFatBinSegment wrapper (__fatBinC_Wrapper_t) points at outside those, the
//     address taken from the wrapper or, in position-independent files whose linker left it 0,
//     from its R_X86_64_RELATIVE / R_AARCH64_RELATIVE relocation.
//  3. with ReadOptions::scan_rodata, fatbins and CUDA ELF images embedded in .rodata and other
//     read-only data (libraries that load them with cuModuleLoadData), found by their magic.
#pragma once

#include <cstdint>
#include <span>

#include "binary/image.h"
#include "binary/reader.h"
#include "util/result.h"

namespace archpatch::binary {

Status ReadHostElf(std::span<uint8_t> bytes, BinaryFile& file, const ReadOptions& options);

}  // namespace archpatch::binary
