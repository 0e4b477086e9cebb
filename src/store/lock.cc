#include "store/lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "store/state_dir.h"

namespace archpatch::store {

Result<EnvLock> EnvLock::Acquire(const std::filesystem::path& site_packages, Mode mode) {
  std::filesystem::path dir = site_packages / kStateDirName;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Error{fmt::format("cannot create '{}': {}", dir.string(), ec.message()), {}};
  std::filesystem::path path = dir / "lock";
  int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return Error{fmt::format("cannot open '{}': {}", path.string(), std::strerror(errno)), {}};
  int operation = mode == Mode::exclusive ? LOCK_EX : LOCK_SH;
  if (flock(fd, operation | LOCK_NB) != 0) {
    spdlog::warn("waiting for another archpatch run on '{}'", site_packages.string());
    int rc;
    while ((rc = flock(fd, operation)) != 0 && errno == EINTR) {
    }
    if (rc != 0) {
      close(fd);
      return Error{fmt::format("cannot lock '{}': {}", path.string(), std::strerror(errno)), {}};
    }
  }
  return EnvLock(fd);
}

EnvLock::~EnvLock() {
  if (fd_ >= 0) close(fd_);  // closing releases the flock
}

}  // namespace archpatch::store
