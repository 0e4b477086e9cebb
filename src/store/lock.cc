#include "store/lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "store/state_dir.h"

namespace archpatch::store {

namespace {

// Whether `fd` is still the file at `path` (a run that wrote nothing may have removed it).
bool StillAt(int fd, const std::filesystem::path& path) {
  struct stat held, now;
  return fstat(fd, &held) == 0 && stat(path.c_str(), &now) == 0 && held.st_dev == now.st_dev &&
         held.st_ino == now.st_ino;
}

}  // namespace

Result<EnvLock> EnvLock::Acquire(const std::filesystem::path& site_packages, Mode mode) {
  std::filesystem::path dir = site_packages / kStateDirName;
  std::filesystem::path path = dir / "lock";
  const int operation = mode == Mode::exclusive ? LOCK_EX : LOCK_SH;
  bool warned = false;
  for (;;) {
    std::error_code ec;
    const bool created = !std::filesystem::is_directory(dir, ec);
    std::filesystem::create_directories(dir, ec);
    if (ec) return Error{fmt::format("cannot create '{}': {}", dir.string(), ec.message()), {}};
    int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0 && errno == ENOENT) continue;  // the folder was just removed by a run that wrote nothing
    if (fd < 0) return Error{fmt::format("cannot open '{}': {}", path.string(), std::strerror(errno)), {}};
    if (flock(fd, operation | LOCK_NB) != 0) {
      if (!warned) spdlog::warn("waiting for another archpatch run on '{}'", site_packages.string());
      warned = true;
      int rc;
      while ((rc = flock(fd, operation)) != 0 && errno == EINTR) {
      }
      if (rc != 0) {
        close(fd);
        return Error{fmt::format("cannot lock '{}': {}", path.string(), std::strerror(errno)), {}};
      }
    }
    if (StillAt(fd, path)) return EnvLock(fd, dir, created);
    close(fd);
  }
}

void EnvLock::RemoveStateDirIfEmpty() {
  if (fd_ < 0) return;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir_, ec)) {
    if (entry.path().filename() != "lock") return;
  }
  if (ec) return;
  unlink((dir_ / "lock").c_str());
  rmdir(dir_.c_str());
}

EnvLock::~EnvLock() {
  if (fd_ >= 0) close(fd_);  // closing releases the flock
}

}  // namespace archpatch::store
