#include "binary/image.h"

#include <algorithm>

#include "binary/coverage.h"

namespace archpatch::binary {

std::string_view FileFormatName(FileFormat format) {
  switch (format) {
    case FileFormat::kElf: return "elf";
    case FileFormat::kCubin: return "cubin";
    case FileFormat::kFatbin: return "fatbin";
    case FileFormat::kPtx: return "ptx";
  }
  return "elf";
}

std::vector<std::string> BinaryFile::Names(ImageKind kind, bool include_relocatable) const {
  std::vector<arch::Arch> arches;
  for (const Image& image : images) {
    if (image.kind != kind || (image.relocatable && !include_relocatable)) continue;
    if (std::find(arches.begin(), arches.end(), image.arch) == arches.end()) arches.push_back(image.arch);
  }
  std::sort(arches.begin(), arches.end(), ArchBefore);
  std::vector<std::string> names;
  for (const arch::Arch& a : arches) names.push_back(kind == ImageKind::kSass ? a.name() : a.compute_name());
  return names;
}

std::vector<std::string> BinaryFile::EmbeddedNames(ImageKind kind) const {
  BinaryFile embedded;
  for (const Image& image : images) {
    if (image.embedded) embedded.images.push_back(image);
  }
  return embedded.Names(kind);
}

}  // namespace archpatch::binary
