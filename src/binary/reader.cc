#include "binary/reader.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <string_view>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "binary/cubin.h"
#include "binary/fatbin.h"
#include "binary/ptx.h"

namespace archpatch::binary {
namespace {

// __fatBinC_Wrapper_t, one per registered module in .nvFatBinSegment:
// u32 magic, u32 version, u64 address of the fatbin, u64 (prelinked list or filename).
constexpr uint32_t kWrapperMagic = 0x466243b1;
constexpr size_t kWrapperSize = 24;

std::string_view AsText(std::span<const uint8_t> bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

// A section of the host ELF: where its bytes are in the file and in memory once loaded.
struct HostSection {
  std::string name;
  uint64_t offset = 0, size = 0, address = 0;
  bool has_bytes = false;  // not SHT_NOBITS
};

std::vector<HostSection> ListSections(Elf* elf, std::span<const uint8_t> bytes) {
  std::vector<HostSection> sections;
  size_t shstrndx = 0;
  if (elf_getshdrstrndx(elf, &shstrndx) != 0) return sections;
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr shdr;
    if (!gelf_getshdr(scn, &shdr)) continue;
    const char* name = elf_strptr(elf, shstrndx, shdr.sh_name);
    HostSection s{name ? name : "", shdr.sh_offset, shdr.sh_size, shdr.sh_addr,
                  shdr.sh_type != SHT_NOBITS};
    if (s.has_bytes && (s.offset > bytes.size() || s.size > bytes.size() - s.offset)) continue;
    sections.push_back(std::move(s));
  }
  return sections;
}

class ImageCollector {
 public:
  ImageCollector(BinaryFile& file, const ReadOptions& options) : file_(file), options_(options) {}

  // Turns every runnable entry of the fatbins in `bytes` into an Image.
  void AddFatbins(std::span<const uint8_t> bytes, const std::string& where, bool relocatable) {
    for (const Fatbin& fatbin : ParseFatbinSequence(bytes, file_.warnings)) {
      for (const FatbinEntry& entry : fatbin.entries) AddEntry(bytes, entry, where, relocatable);
    }
  }

 private:
  void AddEntry(std::span<const uint8_t> bytes, const FatbinEntry& entry, const std::string& where,
                bool relocatable) {
    if (entry.kind != kEntryElf && entry.kind != kEntryPtx) return;  // LTO IR never runs as is
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
    // Only arches with a/f variants need a look inside when the header does not say.
    if (options_.inspect_payloads && image.arch.variant == arch::Variant::kPlain && entry.sm >= 90) {
      InspectPayload(bytes, entry, image);
    }
    file_.images.push_back(std::move(image));
  }

  void InspectPayload(std::span<const uint8_t> bytes, const FatbinEntry& entry, Image& image) {
    Result<std::string> payload = EntryPayload(bytes, entry);
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

  BinaryFile& file_;
  const ReadOptions& options_;
};

// Fatbins a .nvFatBinSegment wrapper points at outside the sections already read (older and
// non-nvcc toolchains have put them in .rodata). Read by address, header first.
void AddWrappedFatbins(std::span<const uint8_t> bytes, const std::vector<HostSection>& sections,
                       const HostSection& segment, ImageCollector& collector, BinaryFile& file) {
  std::span<const uint8_t> wrappers = bytes.subspan(segment.offset, segment.size);
  file.bytes_read += wrappers.size();
  for (size_t at = 0; at + kWrapperSize <= wrappers.size(); at += kWrapperSize) {
    uint32_t magic = 0;
    uint64_t address = 0;
    std::memcpy(&magic, wrappers.data() + at, 4);
    std::memcpy(&address, wrappers.data() + at + 8, 8);
    if (magic != kWrapperMagic) continue;
    for (const HostSection& s : sections) {
      if (!s.has_bytes || address < s.address || address - s.address >= s.size) continue;
      if (s.name == ".nv_fatbin" || s.name == "__nv_relfatbin") break;  // already read
      std::span<const uint8_t> rest = bytes.subspan(s.offset + (address - s.address),
                                                    s.size - (address - s.address));
      Result<uint64_t> size = FatbinSize(rest);
      if (!size) {
        file.warnings.push_back(fmt::format("wrapper points at {:#x} in {}: {}", address, s.name,
                                            size.error().message));
        break;
      }
      file.bytes_read += *size;
      collector.AddFatbins(rest.subspan(0, *size), s.name, false);
      break;
    }
  }
}

Status ReadHostElf(std::span<uint8_t> bytes, BinaryFile& file, const ReadOptions& options) {
  elf_version(EV_CURRENT);
  Elf* elf = elf_memory(reinterpret_cast<char*>(bytes.data()), bytes.size());
  if (!elf || elf_kind(elf) != ELF_K_ELF) {
    if (elf) elf_end(elf);
    return Error{fmt::format("not a readable ELF file: {}", elf_errmsg(-1))};
  }
  const std::vector<HostSection> sections = ListSections(elf, bytes);
  elf_end(elf);
  file.bytes_read += 64 + sections.size() * 64;  // ELF header and section headers
  ImageCollector collector(file, options);
  const HostSection* segment = nullptr;
  for (const HostSection& s : sections) {
    if (!s.has_bytes) continue;
    if (s.name == ".nv_fatbin" || s.name == "__nv_relfatbin") {
      file.bytes_read += s.size;
      collector.AddFatbins(bytes.subspan(s.offset, s.size), s.name, s.name == "__nv_relfatbin");
    } else if (s.name == ".nvFatBinSegment") {
      segment = &s;
    }
  }
  if (segment) AddWrappedFatbins(bytes, sections, *segment, collector, file);
  return Ok{};
}

Status ReadCubin(std::span<const uint8_t> bytes, BinaryFile& file) {
  file.format = FileFormat::kCubin;
  Result<CubinInfo> info = ReadCubinInfo(bytes);
  if (!info) return info.error();
  Image image;
  image.arch = info->arch;
  image.relocatable = info->relocatable;
  image.where = "cubin";
  file.images.push_back(image);
  file.bytes_read = bytes.size();
  return Ok{};
}

Status ReadPtx(std::span<const uint8_t> bytes, BinaryFile& file) {
  file.format = FileFormat::kPtx;
  Result<PtxHeader> header = ParsePtxHeader(AsText(bytes));
  if (!header) return header.error();
  Image image;
  image.kind = ImageKind::kPtx;
  image.arch = header->target;
  image.ptx_version = header->version;
  image.where = "ptx";
  file.images.push_back(image);
  file.bytes_read = std::min<uint64_t>(bytes.size(), 64 * 1024);
  return Ok{};
}

bool StartsWith(std::span<const uint8_t> bytes, std::string_view prefix) {
  return bytes.size() >= prefix.size() && std::memcmp(bytes.data(), prefix.data(), prefix.size()) == 0;
}

bool IsFatbinMagic(std::span<const uint8_t> bytes) {
  uint32_t magic = 0;
  if (bytes.size() >= 4) std::memcpy(&magic, bytes.data(), 4);
  return magic == kFatbinMagic;
}

// A read-only view of a whole file, mapped copy-on-write so libelf may treat it as writable.
class MappedFile {
 public:
  ~MappedFile() {
    if (data_ && data_ != MAP_FAILED) munmap(data_, size_);
    if (fd_ >= 0) close(fd_);
  }
  Status Open(const std::string& path) {
    fd_ = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) return Error{fmt::format("cannot open: {}", std::strerror(errno))};
    struct stat st;
    if (fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) return Error{"not a regular file"};
    size_ = static_cast<size_t>(st.st_size);
    if (size_ == 0) return Ok{};
    data_ = mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd_, 0);
    if (data_ == MAP_FAILED) return Error{fmt::format("cannot map: {}", std::strerror(errno))};
    return Ok{};
  }
  std::span<uint8_t> bytes() const {
    if (!data_ || data_ == MAP_FAILED) return {};
    return {static_cast<uint8_t*>(data_), size_};
  }

 private:
  int fd_ = -1;
  void* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace

bool MayHoldKernels(std::span<const uint8_t> head) {
  return StartsWith(head, "\x7f" "ELF") || IsFatbinMagic(head) || LooksLikePtx(AsText(head));
}

Result<BinaryFile> ReadBinaryBytes(std::span<uint8_t> bytes, const std::string& path,
                                   const ReadOptions& options) {
  BinaryFile file;
  file.path = path;
  file.file_size = bytes.size();
  Status status = Ok{};
  if (IsCubin(bytes)) {
    status = ReadCubin(bytes, file);
  } else if (StartsWith(bytes, "\x7f" "ELF")) {
    status = ReadHostElf(bytes, file, options);
  } else if (IsFatbinMagic(bytes)) {
    file.format = FileFormat::kFatbin;
    file.bytes_read = bytes.size();
    ImageCollector(file, options).AddFatbins(bytes, "fatbin", false);
  } else if (LooksLikePtx(AsText(bytes.first(std::min<size_t>(bytes.size(), 4096))))) {
    status = ReadPtx(bytes, file);
  } else {
    status = Error{"not a CUDA binary (ELF, cubin, fatbin or PTX)"};
  }
  if (!status) return Error{status.error().message, Location{path}};
  for (const std::string& w : file.warnings) spdlog::debug("{}: {}", path, w);
  return file;
}

Result<BinaryFile> ReadBinaryFile(const std::string& path, const ReadOptions& options) {
  MappedFile mapped;
  if (Status opened = mapped.Open(path); !opened) return Error{opened.error().message, Location{path}};
  return ReadBinaryBytes(mapped.bytes(), path, options);
}

}  // namespace archpatch::binary
