#include "util/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

namespace archpatch {
namespace {

Error TooLarge(const std::filesystem::path& path, size_t max_bytes) {
  return Error{fmt::format("{}: larger than {} bytes", path.string(), max_bytes), {}};
}

Error Errno(const std::filesystem::path& path) {
  return Error{fmt::format("cannot read '{}': {}", path.string(), std::strerror(errno)), {}};
}

}  // namespace

Result<std::string> ReadInputFile(const std::filesystem::path& path, size_t max_bytes) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) return Errno(path);
  struct FdCloser {
    int fd;
    ~FdCloser() { close(fd); }
  } closer{fd};
  struct stat st;
  if (fstat(fd, &st) != 0) return Errno(path);
  if (!S_ISREG(st.st_mode)) return Error{fmt::format("{}: not a regular file", path.string()), {}};
  if (static_cast<uint64_t>(st.st_size) > max_bytes) return TooLarge(path, max_bytes);
  std::string bytes;
  bytes.reserve(static_cast<size_t>(st.st_size));
  char buffer[1 << 16];
  for (;;) {
    ssize_t n = read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Errno(path);
    if (n == 0) break;
    if (bytes.size() + static_cast<size_t>(n) > max_bytes) return TooLarge(path, max_bytes);
    bytes.append(buffer, static_cast<size_t>(n));
  }
  return bytes;
}

}  // namespace archpatch
