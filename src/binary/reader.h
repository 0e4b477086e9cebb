// Reads the kernel images of one file: an ELF shared object or executable (the fatbins in
// .nv_fatbin and __nv_relfatbin, and any a .nvFatBinSegment wrapper points at elsewhere), a
// standalone .cubin, a .fatbin or a .ptx file. Only what is needed is touched: the ELF and
// section headers, then the fatbin bytes (the file is mapped, so the rest is never read).
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "binary/image.h"
#include "util/result.h"

namespace archpatch::binary {

struct ReadOptions {
  // Decompress an entry's payload when its header does not say a/f (entries from toolkits
  // before CUDA 13 mark sm_90a only inside the image). Costs a decompression per such entry.
  bool inspect_payloads = true;
  // Also search .rodata for fatbins and CUDA ELF images by their magic (libraries that load
  // kernels themselves with cuModuleLoadData). Reads the whole section; off by default, and
  // ScanBinaries turns it on only for files whose registered images do not cover a target.
  bool scan_rodata = false;
  // The bytes are a read-only file mapping: the pages of each fatbin container are given back
  // (madvise MADV_DONTNEED) once its entries are read, so that a library of a gigabyte does not
  // stay resident while its later containers are read. ReadBinaryFile sets it; never for bytes
  // in memory, whose pages that would zero.
  bool release_read_pages = false;
};

// Reads a file from disk. Errors name the file; a file that is not a CUDA binary at all (an
// ELF with no fatbin is fine: it just has no images) is an Error.
Result<BinaryFile> ReadBinaryFile(const std::string& path, const ReadOptions& options = {});

// The same on bytes in memory (tests, the fuzzer). `bytes` may be modified by libelf's
// in-place conversions, hence non-const.
Result<BinaryFile> ReadBinaryBytes(std::span<uint8_t> bytes, const std::string& path, const ReadOptions& options = {});

}  // namespace archpatch::binary
