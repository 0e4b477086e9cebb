// Removing inside a JIT cache without ever following a symlink (issue 16, item 2): the root is
// opened component by component from '/' with O_NOFOLLOW, everything below is listed and removed
// through directory file descriptors (openat/unlinkat), so swapping a folder for a symlink while
// archpatch works cannot redirect a deletion. A symlink met anywhere is itself removed, never its
// target. The root's identity (device and inode) is checked against the folders that must never
// be emptied, so a second path to the same folder (a symlinked $HOME, a bind mount) is caught.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <set>
#include <utility>

#include "util/result.h"

namespace archpatch::store {

enum class DryRun;

// A folder's identity: (device, inode).
using FolderId = std::pair<dev_t, ino_t>;

// '/' and the real home folder with each of its ancestors: a cache root must be none of them.
std::set<FolderId> ForbiddenRoots(const std::filesystem::path& home);

struct RemoveTally {
  uint64_t files = 0;  // files and symlinks
  uint64_t bytes = 0;
};

class OpenCacheFolder {
 public:
  // Opens `absolute` (which must hold no symlink: a resolved path) from '/' down with O_NOFOLLOW.
  // Missing: ok() and !exists(). A symlink or a non-folder at any component is an error.
  static Result<OpenCacheFolder> Open(const std::filesystem::path& absolute);
  OpenCacheFolder(OpenCacheFolder&& other) noexcept
      : fd_(std::exchange(other.fd_, -1)), path_(std::move(other.path_)) {}
  OpenCacheFolder& operator=(OpenCacheFolder&&) = delete;
  ~OpenCacheFolder();

  bool exists() const { return fd_ >= 0; }
  FolderId id() const;

  // Removes what is under the folder, or under its relative sub-folder `below` (and that
  // sub-folder too), never following a symlink. DryRun::yes only counts.
  Status RemoveContents(RemoveTally& tally, DryRun dry) const;
  Status RemoveSubfolder(const std::filesystem::path& below, RemoveTally& tally, DryRun dry) const;

 private:
  OpenCacheFolder(int fd, std::filesystem::path path) : fd_(fd), path_(std::move(path)) {}
  int fd_ = -1;
  std::filesystem::path path_;
};

}  // namespace archpatch::store
