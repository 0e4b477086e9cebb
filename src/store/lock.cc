#include "store/lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "store/beneath.h"
#include "store/state_dir.h"

namespace archpatch::store {
namespace {

// The lock file's descriptor, or an invalid one with errno set. A reader gets -1 and errno 0
// when it should run unlocked.
UniqueFd OpenLockFile(const std::filesystem::path& site, EnvLock::Mode mode) {
  UniqueFd root(open(site.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!root.valid()) return root;
  const bool writer = mode == EnvLock::Mode::exclusive;
  UniqueFd dir = OpenDirBeneath(root.get(), std::string(kStateDirName), writer);
  if (!dir.valid()) {
    if (!writer && errno == ENOENT) errno = 0;
    return dir;
  }
  const int flags = O_NOFOLLOW | O_CLOEXEC | (writer ? O_RDWR | O_CREAT : O_RDONLY);
  UniqueFd fd(openat(dir.get(), "lock", flags, 0644));
  if (!fd.valid() && !writer && (errno == ENOENT || errno == EACCES)) errno = 0;
  return fd;
}

}  // namespace

namespace {

// Whether `fd` is still the file at `path` (a run that wrote nothing may have removed it).
bool StillAt(int fd, const std::filesystem::path& path) {
  struct stat held, now;
  return fstat(fd, &held) == 0 && stat(path.c_str(), &now) == 0 && held.st_dev == now.st_dev &&
         held.st_ino == now.st_ino;
}

}  // namespace

Result<EnvLock> EnvLock::Acquire(const std::filesystem::path& site_packages, Mode mode) {
  const std::filesystem::path dir = site_packages / kStateDirName;
  const std::filesystem::path path = dir / "lock";
  const int operation = mode == Mode::exclusive ? LOCK_EX : LOCK_SH;
  bool warned = false;
  // A run that wrote nothing removes the folder it created for its lock (RemoveStateDirIfEmpty);
  // a waiter then finds its file gone and takes the lock again on a fresh one. Bounded, so a
  // folder that keeps vanishing cannot spin us forever.
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::error_code ec;
    const bool created = mode == Mode::exclusive && !std::filesystem::exists(std::filesystem::symlink_status(dir, ec));
    UniqueFd fd = OpenLockFile(site_packages, mode);
    if (!fd.valid()) {
      if (errno == 0) {
        spdlog::debug("no lock file to open read-only at '{}': reading unlocked", path.string());
        return EnvLock(-1, dir, false);
      }
      if (errno == ENOENT && attempt + 1 < 100 && std::filesystem::is_directory(site_packages, ec)) continue;
      return BeneathError("open the lock", path, errno);
    }
    if (flock(fd.get(), operation | LOCK_NB) != 0) {
      if (!warned) spdlog::warn("waiting for another archpatch run on '{}'", site_packages.string());
      warned = true;
      int rc;
      while ((rc = flock(fd.get(), operation)) != 0 && errno == EINTR) {
      }
      if (rc != 0) return Error{fmt::format("cannot lock '{}': {}", path.string(), std::strerror(errno)), {}};
    }
    if (StillAt(fd.get(), path)) return EnvLock(fd.release(), dir, created);
  }
  return Error{fmt::format("cannot lock '{}': the state folder keeps disappearing", path.string()), {}};
}

void EnvLock::RemoveStateDirIfEmpty() {
  if (fd_ < 0 || !created_) return;
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
