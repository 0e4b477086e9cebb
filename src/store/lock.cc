#include "store/lock.h"

#include <fcntl.h>
#include <sys/file.h>
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

Result<EnvLock> EnvLock::Acquire(const std::filesystem::path& site_packages, Mode mode) {
  std::filesystem::path path = site_packages / kStateDirName / "lock";
  UniqueFd fd = OpenLockFile(site_packages, mode);
  if (!fd.valid()) {
    if (errno == 0) {
      spdlog::debug("no lock file to open read-only at '{}': reading unlocked", path.string());
      return EnvLock(-1);
    }
    return BeneathError("open the lock", path, errno);
  }
  int operation = mode == Mode::exclusive ? LOCK_EX : LOCK_SH;
  if (flock(fd.get(), operation | LOCK_NB) != 0) {
    spdlog::warn("waiting for another archpatch run on '{}'", site_packages.string());
    int rc;
    while ((rc = flock(fd.get(), operation)) != 0 && errno == EINTR) {
    }
    if (rc != 0) return Error{fmt::format("cannot lock '{}': {}", path.string(), std::strerror(errno)), {}};
  }
  return EnvLock(fd.release());
}

EnvLock::~EnvLock() {
  if (fd_ >= 0) close(fd_);  // closing releases the flock
}

}  // namespace archpatch::store
