#include "store/beneath.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#if __has_include(<linux/openat2.h>)
#include <linux/openat2.h>
#define ARCHPATCH_HAVE_OPENAT2 1
#endif

namespace archpatch::store {

UniqueFd& UniqueFd::operator=(UniqueFd&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) close(fd_);
    fd_ = other.release();
  }
  return *this;
}

UniqueFd::~UniqueFd() {
  if (fd_ >= 0) close(fd_);
}

namespace {

constexpr int kDirFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;

UniqueFd WalkComponents(int root_fd, const std::filesystem::path& relative, bool create) {
  UniqueFd current(fcntl(root_fd, F_DUPFD_CLOEXEC, 0));
  for (const std::filesystem::path& part : relative) {
    const std::string name = part.string();
    if (name.empty() || name == ".") continue;
    if (name == "..") {
      errno = EXDEV;  // never climbs: the callers' paths are checked, this is the last line
      return UniqueFd();
    }
    if (create && mkdirat(current.get(), name.c_str(), 0755) != 0 && errno != EEXIST) return UniqueFd();
    UniqueFd next(openat(current.get(), name.c_str(), kDirFlags));
    if (!next.valid()) {
      // O_NOFOLLOW|O_DIRECTORY on a symlink gives ENOTDIR on some kernels: say what it is.
      int saved = errno;
      struct stat st;
      if (fstatat(current.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) saved = ELOOP;
      errno = saved;
      return UniqueFd();
    }
    current = std::move(next);
  }
  return current;
}

#ifdef ARCHPATCH_HAVE_OPENAT2
// -1 with errno ENOSYS where the kernel (or a seccomp filter) has no openat2.
UniqueFd OpenAt2(int root_fd, const std::filesystem::path& relative) {
  open_how how{};
  how.flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  std::string path = relative.empty() ? "." : relative.string();
  long fd;
  do {
    fd = syscall(SYS_openat2, root_fd, path.c_str(), &how, sizeof how);
  } while (fd < 0 && errno == EAGAIN);
  return UniqueFd(static_cast<int>(fd));
}
#endif

}  // namespace

UniqueFd OpenDirBeneath(int root_fd, const std::filesystem::path& relative, bool create, Resolver resolver) {
#ifdef ARCHPATCH_HAVE_OPENAT2
  if (!create && resolver != Resolver::component_walk) {
    UniqueFd fd = OpenAt2(root_fd, relative);
    if (fd.valid() || resolver == Resolver::openat2) return fd;
    if (errno != ENOSYS && errno != EPERM) return fd;  // EPERM: a seccomp filter said no
  }
#else
  if (resolver == Resolver::openat2) {
    errno = ENOSYS;
    return UniqueFd();
  }
#endif
  return WalkComponents(root_fd, relative, create);
}

Error BeneathError(std::string_view what, const std::filesystem::path& path, int error_number) {
  if (error_number == ELOOP || error_number == EXDEV) {
    return Error{fmt::format("cannot {} '{}': a symlink is on the way; archpatch never follows symlinks "
                             "below the site-packages folder (nothing was written through it)",
                             what, path.string()),
                 {}};
  }
  return Error{fmt::format("cannot {} '{}': {}", what, path.string(), std::strerror(error_number)), {}};
}

}  // namespace archpatch::store
