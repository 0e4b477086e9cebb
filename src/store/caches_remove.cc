#include "store/caches_remove.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "store/caches.h"

namespace archpatch::store {
namespace fs = std::filesystem;
namespace {

constexpr int kMaxDepth = 128;  // deeper than any cache; a deeper tree is refused, not recursed

Error Errno(std::string_view what, const fs::path& path) {
  return Error{fmt::format("cannot {} '{}': {}", what, path.string(), std::strerror(errno)), {}};
}

int OpenDirAt(int parent, const char* name) {
  return openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

Result<std::vector<std::string>> Names(int dirfd, const fs::path& shown) {
  int copy = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (copy < 0) return Errno("list", shown);
  DIR* dir = fdopendir(copy);
  if (!dir) {
    close(copy);
    return Errno("list", shown);
  }
  std::vector<std::string> names;
  while (dirent* e = readdir(dir)) {
    std::string name = e->d_name;
    if (name != "." && name != "..") names.push_back(std::move(name));
  }
  closedir(dir);
  return names;
}

Status RemoveAt(int dirfd, const fs::path& shown, int depth, RemoveTally& tally, DryRun dry);

// One entry of `dirfd`: a folder is opened with O_NOFOLLOW (so a symlink swapped in fails to open
// and is unlinked as what it is), emptied and removed; anything else is unlinked.
Status RemoveEntry(int dirfd, const std::string& name, const fs::path& shown, int depth, RemoveTally& tally,
                   DryRun dry) {
  struct stat st;
  if (fstatat(dirfd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    return errno == ENOENT ? Status(Ok{}) : Status(Errno("inspect", shown / name));
  }
  if (S_ISDIR(st.st_mode)) {
    int child = OpenDirAt(dirfd, name.c_str());
    if (child >= 0) {
      Status inner = RemoveAt(child, shown / name, depth + 1, tally, dry);
      close(child);
      if (!inner) return inner;
      if (dry == DryRun::no && unlinkat(dirfd, name.c_str(), AT_REMOVEDIR) != 0 && errno != ENOENT) {
        return Errno("remove", shown / name);
      }
      return Ok{};
    }
    if (errno != ELOOP && errno != ENOTDIR) return Errno("open", shown / name);
    if (fstatat(dirfd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return Errno("inspect", shown / name);
  }
  ++tally.files;
  tally.bytes += S_ISREG(st.st_mode) ? static_cast<uint64_t>(st.st_size) : 0;
  if (dry == DryRun::no && unlinkat(dirfd, name.c_str(), 0) != 0 && errno != ENOENT) {
    return Errno("remove", shown / name);
  }
  return Ok{};
}

Status RemoveAt(int dirfd, const fs::path& shown, int depth, RemoveTally& tally, DryRun dry) {
  if (depth > kMaxDepth)
    return Error{fmt::format("'{}' is more than {} folders deep; not cleared", shown.string(), kMaxDepth), {}};
  Result<std::vector<std::string>> names = Names(dirfd, shown);
  if (!names) return names.error();
  for (const std::string& name : *names) {
    if (Status s = RemoveEntry(dirfd, name, shown, depth, tally, dry); !s) return s;
  }
  return Ok{};
}

std::optional<FolderId> IdOf(const fs::path& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return std::nullopt;
  return FolderId{st.st_dev, st.st_ino};
}

}  // namespace

std::set<FolderId> ForbiddenRoots(const fs::path& home) {
  std::set<FolderId> ids;
  if (std::optional<FolderId> slash = IdOf("/")) ids.insert(*slash);
  char buffer[PATH_MAX];
  if (home.empty() || !realpath(home.c_str(), buffer)) return ids;
  for (fs::path p = buffer;; p = p.parent_path()) {
    if (std::optional<FolderId> id = IdOf(p)) ids.insert(*id);
    if (p == p.root_path() || p.empty()) break;
  }
  return ids;
}

Result<OpenCacheFolder> OpenCacheFolder::Open(const fs::path& absolute) {
  if (!absolute.is_absolute()) return Error{fmt::format("cache root '{}' is not absolute", absolute.string()), {}};
  int fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Errno("open", "/");
  fs::path so_far = "/";
  for (const fs::path& part : absolute.relative_path()) {
    if (part.empty() || part == ".") continue;
    so_far /= part;
    int next = OpenDirAt(fd, part.c_str());
    const int saved = errno;
    close(fd);
    if (next < 0 && saved == ENOENT) return OpenCacheFolder(-1, absolute);
    if (next < 0 && (saved == ELOOP || saved == ENOTDIR)) {
      return Error{fmt::format("cache root '{}': '{}' is a symlink or not a folder; archpatch never follows one",
                               absolute.string(), so_far.string()),
                   {}};
    }
    errno = saved;
    if (next < 0) return Errno("open", so_far);
    fd = next;
  }
  return OpenCacheFolder(fd, absolute);
}

OpenCacheFolder::~OpenCacheFolder() {
  if (fd_ >= 0) close(fd_);
}

FolderId OpenCacheFolder::id() const {
  struct stat st{};
  fstat(fd_, &st);
  return {st.st_dev, st.st_ino};
}

Status OpenCacheFolder::RemoveContents(RemoveTally& tally, DryRun dry) const {
  return RemoveAt(fd_, path_, 0, tally, dry);
}

Status OpenCacheFolder::RemoveSubfolder(const fs::path& below, RemoveTally& tally, DryRun dry) const {
  int fd = openat(fd_, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Errno("open", path_);
  std::vector<std::string> parts;
  for (const fs::path& part : below) {
    if (part.empty() || part == "." || part == "..") continue;
    parts.push_back(part.string());
  }
  if (parts.empty()) {
    close(fd);
    return Error{fmt::format("'{}' is not below the cache root", below.string()), {}};
  }
  fs::path shown = path_;
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    shown /= parts[i];
    int next = OpenDirAt(fd, parts[i].c_str());
    close(fd);
    if (next < 0) return errno == ENOENT ? Status(Ok{}) : Status(Errno("open", shown));
    fd = next;
  }
  Status s = RemoveEntry(fd, parts.back(), shown, 0, tally, dry);
  close(fd);
  return s;
}

}  // namespace archpatch::store
