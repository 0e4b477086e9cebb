#include "binary/cubin.h"

#include <cstring>
#include <string_view>

#include <fmt/format.h>

namespace archpatch::binary {
namespace {

constexpr uint8_t kOsAbiCudaV1 = 0x33;  // CUDA 12 and older (ABI version 7)
constexpr uint32_t kEfCudaAcceleratorsV1 = 0x800;
constexpr uint32_t kNvCompatArchSpecific = 9;  // .nv.compat attribute: 1 for sm_XXa

template <typename T>
bool Load(std::span<const uint8_t> bytes, uint64_t at, T& value) {
  if (at > bytes.size() || sizeof(T) > bytes.size() - at) return false;
  std::memcpy(&value, bytes.data() + at, sizeof(T));
  return true;
}

struct Section {
  std::string_view name;
  std::span<const uint8_t> data;
};

// Finds a section by name in an ELF64 image; empty data when absent or malformed.
Section FindSection(std::span<const uint8_t> bytes, std::string_view wanted) {
  uint64_t shoff = 0;
  uint16_t shentsize = 0, shnum = 0, shstrndx = 0;
  if (!Load(bytes, 0x28, shoff) || !Load(bytes, 0x3a, shentsize) || !Load(bytes, 0x3c, shnum) ||
      !Load(bytes, 0x3e, shstrndx) || shentsize < 64 || shstrndx >= shnum) {
    return {};
  }
  auto header = [&](uint64_t index, uint32_t& name, uint64_t& offset, uint64_t& size) {
    const uint64_t at = shoff + index * shentsize;
    return Load(bytes, at, name) && Load(bytes, at + 0x18, offset) && Load(bytes, at + 0x20, size) &&
           offset <= bytes.size() && size <= bytes.size() - offset;
  };
  uint32_t unused = 0;
  uint64_t strtab_offset = 0, strtab_size = 0;
  if (!header(shstrndx, unused, strtab_offset, strtab_size)) return {};
  std::string_view strtab(reinterpret_cast<const char*>(bytes.data() + strtab_offset), strtab_size);
  for (uint64_t i = 0; i < shnum; ++i) {
    uint32_t name = 0;
    uint64_t offset = 0, size = 0;
    if (!header(i, name, offset, size) || name >= strtab.size()) continue;
    std::string_view section_name = strtab.substr(name);
    section_name = section_name.substr(0, section_name.find('\0'));
    if (section_name == wanted) return {section_name, bytes.subspan(offset, size)};
  }
  return {};
}

// .nv.compat holds attribute records like .nv.info: format byte, attribute byte, 16-bit value;
// formats 1-3 are 4 bytes long, format 4 carries a payload of `value` bytes after them.
bool NvCompatSaysArchSpecific(std::span<const uint8_t> compat) {
  size_t at = 0;
  while (compat.size() - at >= 4) {
    const uint8_t format = compat[at], attribute = compat[at + 1];
    const uint16_t value = compat[at + 2] | (compat[at + 3] << 8);
    if (format >= 1 && format <= 3) {
      if (format == 2 && attribute == kNvCompatArchSpecific) return value == 1;
      at += 4;
    } else if (format == 4) {
      if (value > compat.size() - at - 4) return false;
      at += 4 + value;
    } else {
      return false;
    }
  }
  return false;
}

// The variant suffix in the recorded ptxas command line ("-arch sm_120f").
arch::Variant VariantFromToolkitNote(std::span<const uint8_t> note, int number) {
  std::string_view text(reinterpret_cast<const char*>(note.data()), note.size());
  const std::string needle = fmt::format("-arch sm_{}", number);
  const size_t at = text.find(needle);
  if (at == std::string_view::npos || at + needle.size() >= text.size()) return arch::Variant::kPlain;
  const char suffix = text[at + needle.size()];
  if (suffix == 'a') return arch::Variant::kArchSpecific;
  if (suffix == 'f') return arch::Variant::kFamily;
  return arch::Variant::kPlain;
}

}  // namespace

bool IsCubin(std::span<const uint8_t> bytes) {
  uint16_t machine = 0;
  return bytes.size() >= 64 &&
         std::memcmp(bytes.data(),
                     "\x7f"
                     "ELF",
                     4) == 0 &&
         bytes[4] == 2 && Load(bytes, 0x12, machine) && machine == kEmCuda;
}

Result<CubinInfo> ReadCubinInfo(std::span<const uint8_t> bytes) {
  if (!IsCubin(bytes)) return Error{"not a 64-bit CUDA ELF image", {}};
  uint16_t type = 0;
  uint32_t flags = 0;
  Load(bytes, 0x10, type);
  Load(bytes, 0x30, flags);
  const bool v1 = bytes[7] == kOsAbiCudaV1;
  const int number = v1 ? static_cast<int>(flags & 0xff) : static_cast<int>((flags >> 8) & 0xff);
  if (number < 10) return Error{fmt::format("CUDA ELF e_flags {:#x} name no sm", flags), {}};
  CubinInfo info;
  info.relocatable = type == 1;
  info.arch = {number / 10, number % 10, arch::Variant::kPlain};
  info.arch.variant = VariantFromToolkitNote(FindSection(bytes, ".note.nv.tkinfo").data, number);
  if (info.arch.variant == arch::Variant::kPlain &&
      ((v1 && (flags & kEfCudaAcceleratorsV1)) || NvCompatSaysArchSpecific(FindSection(bytes, ".nv.compat").data))) {
    info.arch.variant = arch::Variant::kArchSpecific;
  }
  return info;
}

}  // namespace archpatch::binary
