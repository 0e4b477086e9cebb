#include "binary/host_elf.h"

#include <gelf.h>
#include <libelf.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "binary/collector.h"
#include "binary/cubin.h"
#include "binary/fatbin.h"

namespace archpatch::binary {
namespace {

// __fatBinC_Wrapper_t: u32 magic, u32 version, u64 address of the fatbin, u64 (prelinked list
// or file name). One per module the runtime registers, in .nvFatBinSegment.
constexpr uint32_t kWrapperMagic = 0x466243b1;
constexpr size_t kWrapperSize = 24;
constexpr uint32_t kRelativeX86 = 8, kRelativeAarch64 = 1027;

struct HostSection {
  std::string name;
  uint64_t offset = 0, size = 0, address = 0, flags = 0;
  uint32_t type = 0;
  bool has_bytes() const { return type != SHT_NOBITS; }
  bool loaded() const { return (flags & SHF_ALLOC) != 0; }
  bool is_fatbin_section() const { return name == ".nv_fatbin" || name == "__nv_relfatbin"; }
};

std::vector<HostSection> ListSections(Elf* elf, std::span<const uint8_t> bytes) {
  std::vector<HostSection> sections;
  size_t shstrndx = 0;
  if (elf_getshdrstrndx(elf, &shstrndx) != 0) return sections;
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr shdr;
    if (!gelf_getshdr(scn, &shdr)) continue;
    const char* name = elf_strptr(elf, shstrndx, shdr.sh_name);
    HostSection s{name ? name : "", shdr.sh_offset, shdr.sh_size, shdr.sh_addr, shdr.sh_flags, shdr.sh_type};
    if (s.has_bytes() && (s.offset > bytes.size() || s.size > bytes.size() - s.offset)) continue;
    sections.push_back(std::move(s));
  }
  return sections;
}

template <typename T>
T Load(std::span<const uint8_t> bytes, size_t at) {
  T value;
  std::memcpy(&value, bytes.data() + at, sizeof(T));
  return value;
}

class HostElfReader {
 public:
  HostElfReader(std::span<const uint8_t> bytes, std::vector<HostSection> sections, BinaryFile& file,
                const ReadOptions& options)
      : bytes_(bytes), sections_(std::move(sections)), file_(file), collector_(file, options) {}

  void Read(bool scan_rodata) {
    file_.bytes_read += 64 + sections_.size() * 64;  // ELF header and section headers
    for (const HostSection& s : sections_) {
      file_.has_cuda_sections = file_.has_cuda_sections || s.is_fatbin_section() || s.name == ".nvFatBinSegment";
      if (s.name == ".dynstr" && s.has_bytes()) {
        file_.loads_modules = ImportsModuleLoader(Bytes(s));
        file_.runtime_compilers = RuntimeCompilers(Bytes(s));
      }
    }
    for (const HostSection& s : sections_) {
      if (!s.has_bytes() || !s.is_fatbin_section()) continue;
      collector_.AddFatbins(Bytes(s), s.name, s.name == "__nv_relfatbin");
    }
    for (const HostSection& s : sections_) {
      if (s.name == ".nvFatBinSegment" && s.has_bytes()) ReadWrappers(s);
    }
    if (scan_rodata) {
      // libcufft (CUDA 13 wheels): 286 MB, one 672-byte fatbin with an sm_75 cubin, and NVRTC
      // linked in or loaded by name (no DT_NEEDED, no import): its kernels are built at run time.
      // Only a library with next to no device code of its own counts as such; torch names
      // libnvrtc too, for a few kernels, beside hundreds of megabytes of prebuilt ones.
      size_t fatbin_bytes = 0;
      for (const HostSection& s : sections_) fatbin_bytes += s.is_fatbin_section() ? s.size : 0;
      const bool tiny_device_code = fatbin_bytes < kTinyDeviceCode;
      for (const HostSection& s : sections_) {
        if (IsReadOnlyData(s)) ScanForMagic(s);
        if (tiny_device_code && (IsReadOnlyData(s) || (s.name == ".strtab" && s.has_bytes()))) {
          AddRuntimeCompilers(Bytes(s));
        }
      }
    }
  }

 private:
  std::span<const uint8_t> Bytes(const HostSection& s) const { return bytes_.subspan(s.offset, s.size); }

  // Whether the dynamic string table names a driver call that loads kernels from memory.
  bool ImportsModuleLoader(std::span<const uint8_t> dynstr) {
    file_.bytes_read += dynstr.size();
    static constexpr std::string_view kLoaders[] = {"cuModuleLoadData", "cuModuleLoadFatBinary", "cuLibraryLoadData",
                                                    "cudaLibraryLoadData"};
    for (std::string_view name : kLoaders) {
      // memmem, not string_view::find: .dynstr of big C++ libraries runs to megabytes.
      if (memmem(dynstr.data(), dynstr.size(), name.data(), name.size())) return true;
    }
    return false;
  }

  static constexpr size_t kTinyDeviceCode = 64 * 1024;
  static constexpr std::string_view kRuntimeCompilerNames[] = {
      "libnvJitLink",         "libnvrtc",    "libnvptxcompiler", "nvJitLinkCreate", "nvrtcCompileProgram",
      "nvPTXCompilerCompile", "cuLinkCreate"};

  // The runtime compilers the dynamic string table names: DT_NEEDED libraries and imported calls.
  static std::vector<std::string> RuntimeCompilers(std::span<const uint8_t> dynstr) {
    std::vector<std::string> found;
    for (std::string_view name : kRuntimeCompilerNames) {
      if (memmem(dynstr.data(), dynstr.size(), name.data(), name.size())) found.emplace_back(name);
    }
    return found;
  }

  // Adds the runtime compilers whose entry points other string data names (each once). Not
  // cuLinkCreate: the static CUDA runtime in every nvcc-built library holds the whole driver
  // API's names.
  void AddRuntimeCompilers(std::span<const uint8_t> strings) {
    static constexpr std::string_view kEntryPoints[] = {"nvrtcCompileProgram", "nvJitLinkCreate",
                                                        "nvPTXCompilerCompile"};
    file_.bytes_read += strings.size();
    for (std::string_view name : kEntryPoints) {
      auto& have = file_.runtime_compilers;
      if (std::find(have.begin(), have.end(), name) != have.end()) continue;
      if (memmem(strings.data(), strings.size(), name.data(), name.size())) have.emplace_back(name);
    }
  }

  static bool IsReadOnlyData(const HostSection& s) {
    return s.has_bytes() && s.loaded() && !(s.flags & (SHF_WRITE | SHF_EXECINSTR)) &&
           (s.name.rfind(".rodata", 0) == 0 || s.name.rfind(".lrodata", 0) == 0);
  }

  void ReadWrappers(const HostSection& segment) {
    std::span<const uint8_t> wrappers = Bytes(segment);
    file_.bytes_read += wrappers.size();
    for (size_t at = 0; at + kWrapperSize <= wrappers.size(); at += kWrapperSize) {
      if (Load<uint32_t>(wrappers, at) != kWrapperMagic) continue;
      uint64_t address = Load<uint64_t>(wrappers, at + 8);
      if (address == 0) address = RelocatedValue(segment.address + at + 8);
      if (address != 0) ReadFatbinAt(address);
    }
  }

  // The addend of the RELATIVE relocation that fills `where` at load time, 0 when none. The
  // relocation tables are read once, on the first wrapper that needs them.
  uint64_t RelocatedValue(uint64_t where) {
    if (!relocations_read_) {
      relocations_read_ = true;
      for (const HostSection& s : sections_) {
        if (s.type != SHT_RELA || !s.has_bytes() || !s.loaded()) continue;
        std::span<const uint8_t> rela = Bytes(s);
        file_.bytes_read += rela.size();
        for (size_t at = 0; at + 24 <= rela.size(); at += 24) {
          const uint32_t type = static_cast<uint32_t>(Load<uint64_t>(rela, at + 8));
          if (type == kRelativeX86 || type == kRelativeAarch64) {
            relative_[Load<uint64_t>(rela, at)] = Load<uint64_t>(rela, at + 16);
          }
        }
      }
    }
    auto it = relative_.find(where);
    return it == relative_.end() ? 0 : it->second;
  }

  void ReadFatbinAt(uint64_t address) {
    for (const HostSection& s : sections_) {
      if (!s.has_bytes() || !s.loaded() || address < s.address || address - s.address >= s.size) continue;
      if (s.is_fatbin_section()) return;  // read above
      std::span<const uint8_t> rest = Bytes(s).subspan(address - s.address);
      Result<uint64_t> size = FatbinSize(rest);
      if (!size) {
        file_.warnings.push_back(
            fmt::format("wrapper points at {:#x} in {}: {}", address, s.name, size.error().message));
        return;
      }
      collector_.AddFatbins(rest.subspan(0, *size), s.name, false);
      return;
    }
    file_.warnings.push_back(fmt::format("wrapper points at {:#x}, outside every loaded section", address));
  }

  // Fatbins (8-byte aligned, as nvcc and bin2c emit them) and CUDA ELF images in read-only data.
  void ScanForMagic(const HostSection& s) {
    std::span<const uint8_t> data = Bytes(s);
    file_.bytes_read += data.size();
    static constexpr uint8_t kElf[] = {0x7f, 'E', 'L', 'F', 2, 1, 1};
    for (size_t at = 0; at + 64 <= data.size();) {
      const void* hit = memmem(data.data() + at, data.size() - at, kElf, sizeof kElf);
      const void* fat = FindFatbinMagic(data, at);
      const uint8_t* next = static_cast<const uint8_t*>(hit);
      if (fat && (!next || fat < hit)) next = static_cast<const uint8_t*>(fat);
      if (!next) break;
      at = next - data.data();
      std::span<const uint8_t> rest = data.subspan(at);
      if (next == fat) {
        Result<uint64_t> size = FatbinSize(rest);
        if (size) {
          const size_t before = file_.images.size();
          collector_.AddFatbins(rest.subspan(0, *size), s.name, false);
          MarkEmbedded(before);
          at += *size;
          continue;
        }
      } else if (IsCubin(rest)) {
        const size_t before = file_.images.size();
        collector_.AddEmbeddedCubin(rest, s.name);
        MarkEmbedded(before);
      }
      at += 8;
    }
  }

  const void* FindFatbinMagic(std::span<const uint8_t> data, size_t from) const {
    static constexpr uint8_t kMagic[] = {0x50, 0xed, 0x55, 0xba};
    for (size_t at = from; at + 16 <= data.size();) {
      const void* hit = memmem(data.data() + at, data.size() - at, kMagic, sizeof kMagic);
      if (!hit) return nullptr;
      const size_t offset = static_cast<const uint8_t*>(hit) - data.data();
      if (offset % 8 == 0) return hit;
      at = offset + 1;
    }
    return nullptr;
  }

  void MarkEmbedded(size_t from) {
    for (size_t i = from; i < file_.images.size(); ++i) file_.images[i].embedded = true;
  }

  std::span<const uint8_t> bytes_;
  std::vector<HostSection> sections_;
  BinaryFile& file_;
  ImageCollector collector_;
  bool relocations_read_ = false;
  std::unordered_map<uint64_t, uint64_t> relative_;  // r_offset -> r_addend
};

}  // namespace

Status ReadHostElf(std::span<uint8_t> bytes, BinaryFile& file, const ReadOptions& options) {
  elf_version(EV_CURRENT);
  Elf* elf = elf_memory(reinterpret_cast<char*>(bytes.data()), bytes.size());
  if (!elf || elf_kind(elf) != ELF_K_ELF) {
    if (elf) elf_end(elf);
    return Error{fmt::format("not a readable ELF file: {}", elf_errmsg(-1)), {}};
  }
  std::vector<HostSection> sections = ListSections(elf, bytes);
  elf_end(elf);
  HostElfReader(bytes, std::move(sections), file, options).Read(options.scan_rodata);
  return Ok{};
}

}  // namespace archpatch::binary
