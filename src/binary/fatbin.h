// The fatbin container nvcc embeds in host objects (.nv_fatbin) and writes as .fatbin files.
// Layout, read off nvcc 13.0 output (no public specification exists; see docs/binaries.md):
//
//   header  (16 bytes): u32 magic 0xBA55ED50, u16 version 1, u16 header size, u64 entries size
//   entry   (header_size bytes, then payload_size bytes of payload):
//     +0  u16 kind (1 PTX, 2 ELF/SASS, 8 LTO IR)   +2  u16 entry version
//     +4  u32 header_size                          +8  u64 payload_size (padded)
//     +16 u32 compressed_size (0: not compressed)  +20 u32 offset of the options block
//     +24 u16 minor, +26 u16 major  (PTX: the PTX ISA version, 9.0; ELF: 1.8, the ELF ABI)
//     +28 u32 sm (90 for sm_90a)                   +32 u32 name offset, +36 u32 name length
//     +40 u64 flags (below)                        +48 u64 reserved
//     +56 u64 decompressed_size
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "binary/image.h"
#include "util/result.h"

namespace archpatch::binary {

inline constexpr uint32_t kFatbinMagic = 0xBA55ED50;
inline constexpr size_t kFatbinHeaderSize = 16;
inline constexpr size_t kFatbinEntryMinSize = 64;

enum FatbinEntryKind : uint16_t { kEntryPtx = 1, kEntryElf = 2, kEntryLtoIr = 8 };

// Entry flags seen in nvcc output.
enum FatbinFlag : uint64_t {
  kFlag64Bit = 0x1,
  kFlagDebug = 0x2,
  kFlagLinux = 0x10,
  kFlagCompressedLz4 = 0x2000,
  kFlagCompressedZstd = 0x8000,
  kFlagArchSpecific = 0x100000,    // sm_90a / compute_90a
  kFlagFamilySpecific = 0x200000,  // sm_100f / compute_100f
};

struct FatbinEntry {
  uint16_t kind = 0;
  uint32_t sm = 0;
  uint16_t version_major = 0, version_minor = 0;
  uint64_t flags = 0;
  Compression compression = Compression::kNone;
  uint64_t header_offset = 0;   // from the start of the span given to ParseFatbin
  uint64_t payload_offset = 0;  // likewise
  uint64_t payload_size = 0;    // bytes stored (compressed size when compressed)
  uint64_t decompressed_size = 0;
};

struct Fatbin {
  uint64_t offset = 0;  // where the container starts in the span
  uint64_t size = 0;    // header plus entries
  std::vector<FatbinEntry> entries;
};

// The size of the fatbin whose header starts at `bytes` (header plus entries), or an Error
// when the magic or header is wrong or the stated size runs past `bytes`.
Result<uint64_t> FatbinSize(std::span<const uint8_t> bytes);

// Parses one container starting at bytes[0]; entries that run past the container are refused.
Result<Fatbin> ParseFatbin(std::span<const uint8_t> bytes);

// Parses the containers laid back to back in a section (.nv_fatbin holds one per linked
// module, 8-byte aligned). Stops at the first bytes that are not a fatbin header.
std::vector<Fatbin> ParseFatbinSequence(std::span<const uint8_t> bytes, std::vector<std::string>& warnings);
// The same, handing each container to `visit` as soon as it is parsed (a reader of a mapped file
// can then let go of a container's pages before the next one is touched).
void ForEachFatbin(std::span<const uint8_t> bytes, std::vector<std::string>& warnings,
                   const std::function<void(const Fatbin&)>& visit);

// The payload of an entry, decompressed when it is stored compressed.
Result<std::string> EntryPayload(std::span<const uint8_t> fatbin_bytes, const FatbinEntry& entry);

// The arch an entry targets: sm from the header, a/f variant from the flags. `kFlag*Specific`
// is what nvcc 13 writes; entries from older toolkits carry the `a` bit only in the inner ELF,
// which ReadCubinArch reads.
arch::Arch EntryArch(const FatbinEntry& entry);

}  // namespace archpatch::binary
