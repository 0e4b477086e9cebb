// The data model of the binary stage: the kernel images one file carries.
// A SASS image is machine code for one exact arch (sm_90a); a PTX image is virtual code
// (compute_90a) the driver can JIT-compile for a newer GPU.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "arch/arch.h"

namespace archpatch::binary {

enum class ImageKind { kSass, kPtx };

// How a fatbin entry's payload is stored (nvcc -Xfatbin=-compress-all, --compress-mode).
enum class Compression { kNone, kLz4, kZstd };

struct Image {
  ImageKind kind = ImageKind::kSass;
  arch::Arch arch;          // the sm (SASS) or compute (PTX) target, a/f variant included
  std::string ptx_version;  // PTX ISA version ("9.0"), PTX images only
  Compression compression = Compression::kNone;
  // True for relocatable objects (nvcc -rdc fatbins in __nv_relfatbin, ET_REL cubins): input
  // to a later device link, never loaded by the runtime, so they give no coverage.
  bool relocatable = false;
  // Found by searching read-only data for a magic number (ReadOptions::scan_rodata), not
  // through the sections and wrappers the CUDA runtime registers.
  bool embedded = false;
  std::string where;  // where it was found: ".nv_fatbin", "__nv_relfatbin", "cubin", ...

  // "sm_90a" for SASS, "compute_90a" for PTX.
  std::string name() const { return kind == ImageKind::kSass ? arch.name() : arch.compute_name(); }
};

// What kind of file the images came from.
enum class FileFormat { kElf, kCubin, kFatbin, kPtx };

std::string_view FileFormatName(FileFormat format);

struct BinaryFile {
  std::string path;
  FileFormat format = FileFormat::kElf;
  std::vector<Image> images;  // in file order, duplicates kept (one per fatbin entry)
  uint64_t file_size = 0;
  // What the reader looked at: ELF and section headers, fatbin and entry headers, payloads it
  // had to decompress, searched sections. The OS reads whole pages around these.
  uint64_t bytes_read = 0;
  std::vector<std::string> warnings;  // entries skipped as malformed, and why
  // Host ELF only: whether it has the sections nvcc emits (.nv_fatbin, __nv_relfatbin,
  // .nvFatBinSegment), and whether it imports a driver call that loads modules from memory
  // (cuModuleLoadData, cuLibraryLoadData, ...). Either makes a .rodata search worth its cost.
  bool has_cuda_sections = false;
  bool loads_modules = false;
  // Kernels built at run time instead of loaded from an image: fatbin entries of LTO-IR (NVVM IR
  // that nvJitLink links and compiles for the GPU at hand), and the runtime compilers the library
  // links or imports ("libnvJitLink", "libnvrtc", "nvJitLinkCreate", "cuLinkCreate", ...).
  size_t lto_ir_entries = 0;
  std::vector<std::string> lto_ir_arches;  // "compute_75", ... as the entries name them
  std::vector<std::string> runtime_compilers;

  // Unique image names of one kind, sorted by arch table order ("sm_80", "sm_90a").
  std::vector<std::string> Names(ImageKind kind, bool include_relocatable = true) const;
  // Unique names of the images found by the .rodata search (Image::embedded).
  std::vector<std::string> EmbeddedNames(ImageKind kind) const;
};

}  // namespace archpatch::binary
