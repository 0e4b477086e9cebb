#include "binary/collector.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>

#include <fmt/format.h>

#include "binary/cubin.h"
#include "binary/fatbin.h"
#include "binary/ptx.h"

namespace archpatch::binary {

std::string_view AsText(std::span<const uint8_t> bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

void ImageCollector::AddFatbins(std::span<const uint8_t> bytes, const std::string& where, bool relocatable) {
  // Only headers are looked at (the payloads stay unread in the mapping) unless an entry's
  // payload must be inspected; bytes_read counts what was looked at.
  ForEachFatbin(bytes, file_.warnings, [&](const Fatbin& fatbin) {
    file_.bytes_read += kFatbinHeaderSize;
    for (const FatbinEntry& entry : fatbin.entries) {
      file_.bytes_read += entry.payload_offset - entry.header_offset;
      AddEntry(bytes, entry, where, relocatable);
    }
    if (options_.release_read_pages) ReleasePages(bytes.subspan(fatbin.offset, fatbin.size));
  });
}

// The whole pages inside `bytes` leave the process's resident set; a later read maps them in
// again from the file. Only for a file mapping that was never written (ReadOptions).
void ImageCollector::ReleasePages(std::span<const uint8_t> bytes) {
  static const size_t kPage = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  // Offsets from the span's own start keep the pointer arithmetic on the span's pointer.
  const size_t misalign = reinterpret_cast<uintptr_t>(bytes.data()) % kPage;
  const size_t skip = misalign == 0 ? 0 : kPage - misalign;
  if (bytes.size() <= skip) return;
  const size_t length = (bytes.size() - skip) / kPage * kPage;
  // NOLINTNEXTLINE(cppcoreguidelines-pro-type-const-cast): madvise takes void*; the pages are not written
  if (length > 0) madvise(const_cast<uint8_t*>(bytes.data() + skip), length, MADV_DONTNEED);
}

void ImageCollector::AddEmbeddedCubin(std::span<const uint8_t> bytes, const std::string& where) {
  Result<CubinInfo> info = ReadCubinInfo(bytes);
  if (!info) return;
  Image image;
  image.arch = info->arch;
  image.relocatable = info->relocatable;
  image.where = where;
  file_.images.push_back(image);
}

void ImageCollector::AddEntry(std::span<const uint8_t> bytes, const FatbinEntry& entry, const std::string& where,
                              bool relocatable) {
  if (entry.kind == kEntryLtoIr) {  // never runs as is: nvJitLink builds SASS from it at run time
    ++file_.lto_ir_entries;
    std::string name = fmt::format("compute_{}", entry.sm);
    if (std::find(file_.lto_ir_arches.begin(), file_.lto_ir_arches.end(), name) == file_.lto_ir_arches.end()) {
      file_.lto_ir_arches.push_back(name);
    }
    return;
  }
  if (entry.kind != kEntryElf && entry.kind != kEntryPtx) return;
  if (entry.sm < 10 || entry.sm > 999) {
    file_.warnings.push_back(fmt::format("{}: entry names sm {}", where, entry.sm));
    return;
  }
  Image image;
  image.kind = entry.kind == kEntryElf ? ImageKind::kSass : ImageKind::kPtx;
  image.arch = EntryArch(entry);
  image.compression = entry.compression;
  image.relocatable = relocatable;
  image.where = where;
  if (image.kind == ImageKind::kPtx) {
    image.ptx_version = fmt::format("{}.{}", entry.version_major, entry.version_minor);
  }
  // Only arches with a/f variants need a look inside, and only when the header may not say:
  // entries nvcc 13 wrote (ELF ABI version 8, PTX ISA 9.x) always carry the a/f flags.
  const bool header_is_complete = entry.kind == kEntryElf ? entry.version_minor >= 8 : entry.version_major >= 9;
  if (options_.inspect_payloads && !header_is_complete && image.arch.variant == arch::Variant::kPlain &&
      entry.sm >= 90) {
    InspectPayload(bytes, entry, image);
  }
  file_.images.push_back(std::move(image));
}

void ImageCollector::InspectPayload(std::span<const uint8_t> bytes, const FatbinEntry& entry, Image& image) {
  Result<std::string> payload = EntryPayload(bytes, entry);
  file_.bytes_read += entry.payload_size;
  if (!payload) {
    file_.warnings.push_back(fmt::format("{} {}: {}", image.where, image.name(), payload.error().message));
    return;
  }
  std::span<const uint8_t> data(reinterpret_cast<const uint8_t*>(payload->data()), payload->size());
  if (image.kind == ImageKind::kSass) {
    Result<CubinInfo> info = ReadCubinInfo(data);
    if (info && info->arch.plain() == image.arch.plain()) {
      image.arch.variant = info->arch.variant;
      image.relocatable = image.relocatable || info->relocatable;
    }
  } else if (Result<PtxHeader> header = ParsePtxHeader(AsText(data)); header) {
    if (header->target.plain() == image.arch.plain()) image.arch.variant = header->target.variant;
  }
}

}  // namespace archpatch::binary
