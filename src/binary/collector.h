// ImageCollector: turns fatbin entries and embedded cubins into Images of one BinaryFile,
// looking inside payloads when the entry header does not give the a/f variant.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "binary/image.h"
#include "binary/reader.h"

namespace archpatch::binary {

struct FatbinEntry;

class ImageCollector {
 public:
  ImageCollector(BinaryFile& file, const ReadOptions& options) : file_(file), options_(options) {}

  // Every SASS and PTX entry of the fatbins laid back to back in `bytes`.
  void AddFatbins(std::span<const uint8_t> bytes, const std::string& where, bool relocatable);

  // A CUDA ELF image found embedded in host data (cuModuleLoadData-style arrays).
  void AddEmbeddedCubin(std::span<const uint8_t> bytes, const std::string& where);

 private:
  void AddEntry(std::span<const uint8_t> bytes, const FatbinEntry& entry, const std::string& where, bool relocatable);
  void InspectPayload(std::span<const uint8_t> bytes, const FatbinEntry& entry, Image& image);
  static void ReleasePages(std::span<const uint8_t> bytes);

  BinaryFile& file_;
  const ReadOptions& options_;
};

std::string_view AsText(std::span<const uint8_t> bytes);

}  // namespace archpatch::binary
