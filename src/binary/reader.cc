#include "binary/reader.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <string_view>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "binary/collector.h"
#include "binary/cubin.h"
#include "binary/fatbin.h"
#include "binary/host_elf.h"
#include "binary/ptx.h"

namespace archpatch::binary {
namespace {

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
    if (fd_ < 0) return Error{fmt::format("cannot open: {}", std::strerror(errno)), {}};
    struct stat st;
    if (fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) return Error{"not a regular file", {}};
    size_ = static_cast<size_t>(st.st_size);
    if (size_ == 0) return Ok{};
    data_ = mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd_, 0);
    if (data_ == MAP_FAILED) return Error{fmt::format("cannot map: {}", std::strerror(errno)), {}};
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

Result<BinaryFile> ReadBinaryBytes(std::span<uint8_t> bytes, const std::string& path, const ReadOptions& options) {
  BinaryFile file;
  file.path = path;
  file.file_size = bytes.size();
  Status status = Ok{};
  if (IsCubin(bytes)) {
    status = ReadCubin(bytes, file);
  } else if (StartsWith(bytes,
                        "\x7f"
                        "ELF")) {
    status = ReadHostElf(bytes, file, options);
  } else if (IsFatbinMagic(bytes)) {
    file.format = FileFormat::kFatbin;
    ImageCollector(file, options).AddFatbins(bytes, "fatbin", false);
  } else if (LooksLikePtx(AsText(bytes.first(std::min<size_t>(bytes.size(), 4096))))) {
    status = ReadPtx(bytes, file);
  } else {
    status = Error{"not a CUDA binary (ELF, cubin, fatbin or PTX)", {}};
  }
  if (!status) return Error{status.error().message, Location{path}};
  for (const std::string& w : file.warnings) spdlog::debug("{}: {}", path, w);
  return file;
}

Result<BinaryFile> ReadBinaryFile(const std::string& path, const ReadOptions& options) {
  MappedFile mapped;
  if (Status opened = mapped.Open(path); !opened) return Error{opened.error().message, Location{path}};
  ReadOptions mapped_options = options;
  mapped_options.release_read_pages = true;
  return ReadBinaryBytes(mapped.bytes(), path, mapped_options);
}

}  // namespace archpatch::binary
