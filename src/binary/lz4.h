// LZ4 block decompression: the format nvcc writes for fatbin entries with flag 0x2000
// (`--compress-mode=speed`, and every -Xfatbin=-compress-all before CUDA 12.8 switched the
// default to zstd). A raw LZ4 block, no frame; the fatbin entry header gives both sizes.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "util/result.h"

namespace archpatch::binary {

// Decodes one LZ4 block into exactly `decompressed_size` bytes. Every read and write is
// bounds-checked: malformed input gives an Error, never a crash.
Result<std::string> Lz4DecompressBlock(std::span<const uint8_t> input, size_t decompressed_size);

}  // namespace archpatch::binary
