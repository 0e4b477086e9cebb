#include "binary/fatbin.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>
#include <zstd.h>

#include "binary/lz4.h"

namespace archpatch::binary {
namespace {

template <typename T>
T Load(std::span<const uint8_t> bytes, size_t at) {
  T value;
  std::memcpy(&value, bytes.data() + at, sizeof(T));  // fatbins are little-endian, like x86-64
  return value;
}

Compression CompressionOf(uint64_t flags) {
  if (flags & kFlagCompressedZstd) return Compression::kZstd;
  if (flags & kFlagCompressedLz4) return Compression::kLz4;
  return Compression::kNone;
}

Result<FatbinEntry> ParseEntry(std::span<const uint8_t> bytes, size_t at, size_t end) {
  if (end - at < kFatbinEntryMinSize) return Error{fmt::format("entry at {} is truncated", at), {}};
  FatbinEntry e;
  e.header_offset = at;
  e.kind = Load<uint16_t>(bytes, at);
  const uint32_t header_size = Load<uint32_t>(bytes, at + 4);
  const uint64_t stored_size = Load<uint64_t>(bytes, at + 8);
  const uint32_t compressed_size = Load<uint32_t>(bytes, at + 16);
  e.version_minor = Load<uint16_t>(bytes, at + 24);
  e.version_major = Load<uint16_t>(bytes, at + 26);
  e.sm = Load<uint32_t>(bytes, at + 28);
  e.flags = Load<uint64_t>(bytes, at + 40);
  e.decompressed_size = Load<uint64_t>(bytes, at + 56);
  e.compression = CompressionOf(e.flags);
  if (header_size < kFatbinEntryMinSize || header_size > end - at || stored_size > end - at - header_size) {
    return Error{fmt::format("entry at {} runs past its fatbin", at), {}};
  }
  e.payload_offset = at + header_size;
  e.payload_size = stored_size;
  // The stored size is padded to 8 bytes; the compressed size is the exact byte count.
  if (e.compression != Compression::kNone && compressed_size != 0 && compressed_size <= stored_size) {
    e.payload_size = compressed_size;
  }
  return e;
}

}  // namespace

Result<uint64_t> FatbinSize(std::span<const uint8_t> bytes) {
  if (bytes.size() < kFatbinHeaderSize || Load<uint32_t>(bytes, 0) != kFatbinMagic) {
    return Error{"no fatbin header", {}};
  }
  const uint16_t header_size = Load<uint16_t>(bytes, 6);
  const uint64_t entries_size = Load<uint64_t>(bytes, 8);
  if (header_size < kFatbinHeaderSize || header_size > bytes.size() || entries_size > bytes.size() - header_size) {
    return Error{"fatbin header states a size past the end of its data", {}};
  }
  return header_size + entries_size;
}

Result<Fatbin> ParseFatbin(std::span<const uint8_t> bytes) {
  Result<uint64_t> size = FatbinSize(bytes);
  if (!size) return size.error();
  Fatbin fatbin;
  fatbin.size = *size;
  size_t at = Load<uint16_t>(bytes, 6);
  while (at < fatbin.size) {
    Result<FatbinEntry> entry = ParseEntry(bytes, at, fatbin.size);
    if (!entry) return entry.error();
    fatbin.entries.push_back(*entry);
    // Entries follow each other directly: header, then the (padded) stored payload.
    at = entry->payload_offset + Load<uint64_t>(bytes, at + 8);
  }
  return fatbin;
}

std::vector<Fatbin> ParseFatbinSequence(std::span<const uint8_t> bytes, std::vector<std::string>& warnings) {
  std::vector<Fatbin> fatbins;
  ForEachFatbin(bytes, warnings, [&](const Fatbin& f) { fatbins.push_back(f); });
  return fatbins;
}

void ForEachFatbin(std::span<const uint8_t> bytes, std::vector<std::string>& warnings,
                   const std::function<void(const Fatbin&)>& visit) {
  size_t at = 0;
  while (bytes.size() - at >= kFatbinHeaderSize) {
    if (Load<uint32_t>(bytes, at) != kFatbinMagic) {
      at += 8;  // padding between containers keeps them 8-byte aligned
      continue;
    }
    Result<Fatbin> fatbin = ParseFatbin(bytes.subspan(at));
    if (!fatbin) {
      warnings.push_back(fmt::format("fatbin at offset {}: {}", at, fatbin.error().message));
      at += 8;
      continue;
    }
    fatbin->offset = at;
    for (FatbinEntry& e : fatbin->entries) {
      e.header_offset += at;
      e.payload_offset += at;
    }
    at = std::min<uint64_t>(bytes.size(), at + ((fatbin->size + 7) & ~uint64_t{7}));
    visit(*fatbin);
  }
}

Result<std::string> EntryPayload(std::span<const uint8_t> bytes, const FatbinEntry& e) {
  if (e.payload_offset > bytes.size() || e.payload_size > bytes.size() - e.payload_offset) {
    return Error{"entry payload runs past the data", {}};
  }
  std::span<const uint8_t> stored = bytes.subspan(e.payload_offset, e.payload_size);
  // Decompressed sizes are bounded so a corrupt header cannot ask for gigabytes: 2 GiB, and
  // no more than 4096 times the stored bytes (far above what zstd or LZ4 reach on cubins).
  constexpr uint64_t kMaxImage = uint64_t{1} << 31, kMaxRatio = 4096;
  if (e.compression != Compression::kNone &&
      (e.decompressed_size > kMaxImage || e.decompressed_size > (stored.size() + 64) * kMaxRatio)) {
    return Error{fmt::format("entry states a decompressed size of {} bytes", e.decompressed_size), {}};
  }
  switch (e.compression) {
    case Compression::kNone: return std::string(reinterpret_cast<const char*>(stored.data()), stored.size());
    case Compression::kLz4: return Lz4DecompressBlock(stored, e.decompressed_size);
    case Compression::kZstd: {
      const unsigned long long framed = ZSTD_getFrameContentSize(stored.data(), stored.size());
      if (framed == ZSTD_CONTENTSIZE_ERROR) return Error{"zstd: not a zstd frame", {}};
      if (framed != ZSTD_CONTENTSIZE_UNKNOWN && framed != e.decompressed_size) {
        return Error{fmt::format("zstd frame holds {} bytes, the entry says {}", framed, e.decompressed_size), {}};
      }
      std::string out(e.decompressed_size, '\0');
      const size_t n = ZSTD_decompress(out.data(), out.size(), stored.data(), stored.size());
      if (ZSTD_isError(n)) return Error{fmt::format("zstd: {}", ZSTD_getErrorName(n)), {}};
      out.resize(n);
      return out;
    }
  }
  return Error{"unknown compression", {}};
}

arch::Arch EntryArch(const FatbinEntry& e) {
  arch::Arch a{static_cast<int>(e.sm / 10), static_cast<int>(e.sm % 10), arch::Variant::kPlain};
  if (e.flags & kFlagArchSpecific)
    a.variant = arch::Variant::kArchSpecific;
  else if (e.flags & kFlagFamilySpecific)
    a.variant = arch::Variant::kFamily;
  return a;
}

}  // namespace archpatch::binary
