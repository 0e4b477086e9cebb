// RealDisk: the Disk of the real filesystem. Below its root (the site-packages folder of the
// StateDir that uses it) every path is opened through store/beneath.h: no symlink is followed at
// any component, and each operation works on the descriptor of the file's directory, so a folder
// swapped for a symlink after a check cannot make a write land elsewhere. Outside the root
// (PYTHONPYCACHEPREFIX, JIT caches) the directory is opened by name, and the last component is
// still never followed.
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "store/beneath.h"
#include "store/disk.h"

namespace archpatch::store {
namespace {

bool WriteAll(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t n = write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

FileKind KindOf(mode_t mode) {
  if (S_ISREG(mode)) return FileKind::file;
  if (S_ISDIR(mode)) return FileKind::dir;
  if (S_ISLNK(mode)) return FileKind::symlink;
  return FileKind::other;
}

FileInfo InfoOf(const struct stat& st) {
  return FileInfo{KindOf(st.st_mode),
                  static_cast<uint32_t>(st.st_mode & 07777),
                  st.st_uid,
                  st.st_gid,
                  static_cast<uint64_t>(st.st_nlink),
                  static_cast<uint64_t>(st.st_size),
                  int64_t{st.st_mtim.tv_sec} * 1000000000 + st.st_mtim.tv_nsec};
}

// The extended attributes kept across a Replace: user.* (what tools and users set), security.*
// (SELinux labels, capabilities; only root may set most of them) and POSIX ACLs. An attribute the
// kernel or filesystem refuses to set is skipped: the bytes matter more than a label.
bool KeptAttribute(std::string_view name) {
  return name.starts_with("user.") || name.starts_with("security.") || name.starts_with("system.posix_acl_");
}

void CopyAttributes(int from, int to) {
  ssize_t size = flistxattr(from, nullptr, 0);
  if (size <= 0) return;
  std::string names(static_cast<size_t>(size), '\0');
  size = flistxattr(from, names.data(), names.size());
  if (size <= 0) return;
  names.resize(static_cast<size_t>(size));
  for (size_t start = 0; start < names.size();) {
    std::string name = names.c_str() + start;
    start += name.size() + 1;
    if (!KeptAttribute(name)) continue;
    ssize_t length = fgetxattr(from, name.c_str(), nullptr, 0);
    if (length < 0) continue;
    std::string value(static_cast<size_t>(length), '\0');
    length = fgetxattr(from, name.c_str(), value.data(), value.size());
    if (length < 0) continue;
    if (fsetxattr(to, name.c_str(), value.data(), static_cast<size_t>(length), 0) != 0) {
      spdlog::debug("extended attribute '{}' not kept: {}", name, std::strerror(errno));
    }
  }
}

}  // namespace

void RealDisk::ConfineBelow(const fs::path& root) {
  root_ = root.lexically_normal();
  if (!root_.has_filename() && root_.has_parent_path()) root_ = root_.parent_path();
}

// Opens the directory of `path`: below the root through OpenDirBeneath, elsewhere by name.
RealDisk::Located RealDisk::Locate(const fs::path& path, bool create) const {
  const fs::path normal = path.lexically_normal();
  fs::path relative;
  if (!root_.empty()) relative = normal.lexically_relative(root_);
  const bool below = !relative.empty() && relative != "." && *relative.begin() != "..";
  Located out;
  out.name = normal.filename().string();
  if (!below) {
    out.dir = UniqueFd(
        open(normal.parent_path().empty() ? "." : normal.parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  } else {
    UniqueFd root(open(root_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (root.valid()) out.dir = OpenDirBeneath(root.get(), relative.parent_path(), create);
  }
  if (!out.dir.valid()) out.error = errno;
  out.below = below;
  return out;
}

Status RealDisk::ReadPieces(const fs::path& path, const std::function<void(std::string_view)>& piece) {
  Located at = Locate(path, false);
  if (at.error) return BeneathError("read", path, at.error);
  // O_NONBLOCK: a FIFO planted where a file should be must not hang the run.
  UniqueFd fd(openat(at.dir.get(), at.name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (!fd.valid()) return BeneathError("read", path, errno);
  struct stat st;
  if (fstat(fd.get(), &st) != 0) return BeneathError("read", path, errno);
  if (!S_ISREG(st.st_mode)) return Error{fmt::format("cannot read '{}': not a regular file", path.string()), {}};
  char buffer[1 << 16];
  for (;;) {
    ssize_t n = read(fd.get(), buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return BeneathError("read", path, errno);
    if (n == 0) break;
    piece(std::string_view(buffer, static_cast<size_t>(n)));
  }
  return Ok{};
}

Result<std::string> RealDisk::Read(const fs::path& path) {
  std::string bytes;
  Status read = ReadPieces(path, [&](std::string_view piece) { bytes.append(piece); });
  if (!read) return read.error();
  return bytes;
}

FileInfo RealDisk::Stat(const fs::path& path) {
  Located at = Locate(path, false);
  if (at.error) {
    // A symlink on the way reads as one: every caller refuses symlinks.
    return FileInfo{at.error == ELOOP || at.error == EXDEV ? FileKind::symlink : FileKind::missing};
  }
  struct stat st;
  if (fstatat(at.dir.get(), at.name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return FileInfo{};
  return InfoOf(st);
}

Result<std::vector<std::string>> RealDisk::List(const fs::path& dir) {
  Located at = Locate(dir / "x", false);
  if (at.error) return BeneathError("list", dir, at.error);
  DIR* d = fdopendir(at.dir.release());
  if (!d) return BeneathError("list", dir, errno);
  std::vector<std::string> names;
  while (dirent* e = readdir(d)) {
    std::string_view name = e->d_name;
    if (name != "." && name != "..") names.emplace_back(name);
  }
  closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

Status RealDisk::Replace(const fs::path& path, std::string_view bytes, const ReplaceOptions& options) {
  Located at = Locate(path, false);
  if (at.error) return BeneathError("write", path, at.error);
  const int dir = at.dir.get();
  struct stat old_st;
  const bool had_file = fstatat(dir, at.name.c_str(), &old_st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(old_st.st_mode);
  const std::string temp = "." + at.name + ".archpatch-tmp";
  const fs::path temp_path = path.parent_path() / temp;
  unlinkat(dir, temp.c_str(), 0);  // a leftover of an earlier crash
  UniqueFd fd(openat(dir, temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!fd.valid()) return BeneathError("create", temp_path, errno);
  auto fail = [&](std::string_view what) {
    Error e = BeneathError(what, temp_path, errno);
    unlinkat(dir, temp.c_str(), 0);
    return e;
  };
  if (!WriteAll(fd.get(), bytes)) return fail("write");
  if (had_file) {
    // Owner first: chown clears set-user-ID bits, which fchmod then restores.
    if (fchown(fd.get(), old_st.st_uid, old_st.st_gid) != 0) {
      struct stat st;
      if (fstat(fd.get(), &st) != 0 || st.st_uid != old_st.st_uid || st.st_gid != old_st.st_gid) {
        return fail("keep the owner of");
      }
    }
    UniqueFd old(openat(dir, at.name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
    if (old.valid()) CopyAttributes(old.get(), fd.get());
  }
  if (fchmod(fd.get(), had_file ? (old_st.st_mode & 07777) : 0644) != 0) return fail("chmod");
  if (options.mtime_ns) {
    timespec times[2] = {{0, UTIME_OMIT}, {*options.mtime_ns / 1000000000, *options.mtime_ns % 1000000000}};
    if (futimens(fd.get(), times) != 0) return fail("set the modification time of");
  }
  if (fsync(fd.get()) != 0) return fail("fsync");
  if (renameat(dir, temp.c_str(), dir, at.name.c_str()) != 0) return fail("rename");
  if (fsync(dir) != 0) return BeneathError("fsync directory", path.parent_path(), errno);
  return Ok{};
}

Status RealDisk::Remove(const fs::path& path) {
  Located at = Locate(path, false);
  if (at.error) return at.error == ENOENT ? Status(Ok{}) : Status(BeneathError("remove", path, at.error));
  if (unlinkat(at.dir.get(), at.name.c_str(), 0) != 0 && errno != ENOENT) {
    return BeneathError("remove", path, errno);
  }
  return Ok{};
}

Status RealDisk::RemoveDir(const fs::path& path) {
  Located at = Locate(path, false);
  if (at.error) {
    return at.error == ENOENT ? Status(Ok{}) : Status(BeneathError("remove directory", path, at.error));
  }
  if (unlinkat(at.dir.get(), at.name.c_str(), AT_REMOVEDIR) != 0 && errno != ENOENT) {
    return BeneathError("remove directory", path, errno);
  }
  return Ok{};
}

Status RealDisk::MakeDirs(const fs::path& path) {
  Located at = Locate(path / "x", true);
  if (at.below && at.error) return BeneathError("create", path, at.error);
  if (at.error) {
    // Outside the root: by name, as before.
    std::error_code ec;
    fs::create_directories(path, ec);
    if (ec) return Error{fmt::format("cannot create '{}': {}", path.string(), ec.message()), {}};
  }
  return Ok{};
}

}  // namespace archpatch::store
