// Opening below a root without ever following a symlink (issue 16, items 6 and 8).
//
// A path checked once and opened again later by name can be swapped in between (a package folder
// replaced by a symlink after the check): RealDisk therefore resolves every path below its root
// from a descriptor of the root, one directory at a time, refusing a symlink at every component,
// and then works on the last directory's descriptor only (openat, fstatat, renameat, unlinkat).
// What is above the root (and the root itself) is trusted: whoever can replace the root can
// write anything it points to anyway.
#pragma once

#include <filesystem>
#include <string>

#include "util/result.h"

namespace archpatch::store {

// A file descriptor, closed when it goes out of scope.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept;
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd();

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  int release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_ = -1;
};

// How directories below the root are resolved: openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)
// (Linux 5.6+, one call), or openat(O_NOFOLLOW) component by component where openat2 is missing.
// Both refuse the same paths; `automatic` tries the first and falls back to the second.
enum class Resolver { automatic, openat2, component_walk };

// Opens the directory `relative` (relative to the directory `root_fd`; "" or "." is the root
// itself). A symlink at any component fails with errno ELOOP, a component that is not a
// directory with ENOTDIR; `create` makes missing directories (mode 0755) on the way.
// Returns -1 with errno set on failure.
UniqueFd OpenDirBeneath(int root_fd, const std::filesystem::path& relative, bool create = false,
                        Resolver resolver = Resolver::automatic);

// "cannot WHAT 'PATH': REASON", where a symlink met on the way (ELOOP) reads "a symlink is on the
// way; archpatch never follows symlinks below the site-packages root".
Error BeneathError(std::string_view what, const std::filesystem::path& path, int error_number);

}  // namespace archpatch::store
