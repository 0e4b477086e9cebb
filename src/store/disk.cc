#include "store/disk.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

namespace archpatch::store {
namespace {

Error Errno(std::string_view what, const fs::path& path) {
  return Error{fmt::format("cannot {} '{}': {}", what, path.string(), std::strerror(errno)), {}};
}

// Closes a file descriptor when it goes out of scope.
struct Fd {
  int fd = -1;
  explicit Fd(int f) : fd(f) {}
  ~Fd() {
    if (fd >= 0) close(fd);
  }
};

bool WriteAll(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t n = write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

Status FsyncDir(const fs::path& dir) {
  Fd fd(open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd.fd < 0 || fsync(fd.fd) != 0) return Errno("fsync directory", dir);
  return Ok{};
}

FileKind KindOf(mode_t mode) {
  if (S_ISREG(mode)) return FileKind::file;
  if (S_ISDIR(mode)) return FileKind::dir;
  if (S_ISLNK(mode)) return FileKind::symlink;
  return FileKind::other;
}

}  // namespace

fs::path TempPathFor(const fs::path& path) {
  return path.parent_path() / ("." + path.filename().string() + ".archpatch-tmp");
}

bool IsTempName(std::string_view name) {
  return name.size() > 1 && name[0] == '.' && name.ends_with(".archpatch-tmp");
}

Result<std::string> RealDisk::Read(const fs::path& path) {
  Fd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.fd < 0) return Errno("read", path);
  std::string bytes;
  char buffer[1 << 16];
  for (;;) {
    ssize_t n = read(fd.fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Errno("read", path);
    if (n == 0) break;
    bytes.append(buffer, static_cast<size_t>(n));
  }
  return bytes;
}

FileInfo RealDisk::Stat(const fs::path& path) {
  struct stat st;
  if (lstat(path.c_str(), &st) != 0) return FileInfo{};
  return FileInfo{KindOf(st.st_mode),
                  static_cast<uint32_t>(st.st_mode & 07777),
                  st.st_uid,
                  st.st_gid,
                  static_cast<uint64_t>(st.st_nlink),
                  static_cast<uint64_t>(st.st_size),
                  int64_t{st.st_mtim.tv_sec} * 1000000000 + st.st_mtim.tv_nsec};
}

Result<std::vector<std::string>> RealDisk::List(const fs::path& dir) {
  DIR* d = opendir(dir.c_str());
  if (!d) return Errno("list", dir);
  std::vector<std::string> names;
  while (dirent* e = readdir(d)) {
    std::string_view name = e->d_name;
    if (name != "." && name != "..") names.emplace_back(name);
  }
  closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

Status RealDisk::Replace(const fs::path& path, std::string_view bytes) {
  FileInfo old = Stat(path);
  fs::path temp = TempPathFor(path);
  unlink(temp.c_str());  // a leftover of an earlier crash
  Fd fd(open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
  if (fd.fd < 0) return Errno("create", temp);
  auto fail = [&](std::string_view what) {
    Error e = Errno(what, temp);
    unlink(temp.c_str());
    return e;
  };
  if (!WriteAll(fd.fd, bytes)) return fail("write");
  // Owner first: chown clears set-user-ID bits, which fchmod then restores.
  if (old.kind == FileKind::file && fchown(fd.fd, old.uid, old.gid) != 0) {
    struct stat st;
    if (fstat(fd.fd, &st) != 0 || st.st_uid != old.uid || st.st_gid != old.gid) {
      return fail("keep the owner of");
    }
  }
  if (fchmod(fd.fd, old.kind == FileKind::file ? old.mode : 0644) != 0) return fail("chmod");
  if (fsync(fd.fd) != 0) return fail("fsync");
  if (rename(temp.c_str(), path.c_str()) != 0) return fail("rename");
  return FsyncDir(path.parent_path());
}

Status RealDisk::Remove(const fs::path& path) {
  if (unlink(path.c_str()) != 0 && errno != ENOENT) return Errno("remove", path);
  return Ok{};
}

Status RealDisk::RemoveDir(const fs::path& path) {
  if (rmdir(path.c_str()) != 0 && errno != ENOENT) return Errno("remove directory", path);
  return Ok{};
}

Status RealDisk::MakeDirs(const fs::path& path) {
  std::error_code ec;
  fs::create_directories(path, ec);
  if (ec) return Error{fmt::format("cannot create '{}': {}", path.string(), ec.message()), {}};
  return Ok{};
}

// --- FakeDisk ---

void FakeDisk::AddParents(const fs::path& path) {
  for (fs::path p = path.parent_path(); !p.empty() && p != p.root_path(); p = p.parent_path()) {
    nodes_.try_emplace(p, Node{FileKind::dir, "", 0755, 1});
  }
}

void FakeDisk::AddFile(const fs::path& path, std::string bytes, uint32_t mode) {
  AddParents(path);
  nodes_[path] = Node{FileKind::file, std::move(bytes), mode, 1};
}

void FakeDisk::AddSymlink(const fs::path& path, const fs::path& target) {
  AddParents(path);
  nodes_[path] = Node{FileKind::symlink, target.string(), 0777, 1};
}

Result<std::string> FakeDisk::Read(const fs::path& path) {
  auto it = nodes_.find(path);
  if (it == nodes_.end() || it->second.kind != FileKind::file) {
    return Error{fmt::format("cannot read '{}': No such file or directory", path.string()), {}};
  }
  return it->second.bytes;
}

FileInfo FakeDisk::Stat(const fs::path& path) {
  auto it = nodes_.find(path);
  if (it == nodes_.end()) return FileInfo{};
  const Node& n = it->second;
  return FileInfo{n.kind, n.mode, 0, 0, n.nlink, n.bytes.size(), 0};
}

Result<std::vector<std::string>> FakeDisk::List(const fs::path& dir) {
  auto it = nodes_.find(dir);
  if (it == nodes_.end() || it->second.kind != FileKind::dir) {
    return Error{fmt::format("cannot list '{}': No such file or directory", dir.string()), {}};
  }
  std::vector<std::string> names;
  for (const auto& [p, node] : nodes_) {
    if (p.parent_path() == dir && p != dir) names.push_back(p.filename().string());
  }
  return names;
}

Status FakeDisk::Replace(const fs::path& path, std::string_view bytes) {
  ++writes_;
  auto it = nodes_.find(path.parent_path());
  if (it == nodes_.end() || it->second.kind != FileKind::dir) {
    return Error{fmt::format("cannot create '{}': No such file or directory", path.string()), {}};
  }
  auto old = nodes_.find(path);
  uint32_t mode = old != nodes_.end() && old->second.kind == FileKind::file ? old->second.mode : 0644;
  nodes_[path] = Node{FileKind::file, std::string(bytes), mode, 1};
  return Ok{};
}

Status FakeDisk::Remove(const fs::path& path) {
  ++writes_;
  nodes_.erase(path);
  return Ok{};
}

Status FakeDisk::RemoveDir(const fs::path& path) {
  ++writes_;
  auto names = List(path);
  if (names && !names->empty()) return Error{fmt::format("cannot remove '{}': not empty", path.string()), {}};
  nodes_.erase(path);
  return Ok{};
}

Status FakeDisk::MakeDirs(const fs::path& path) {
  ++writes_;
  AddParents(path / "x");
  return Ok{};
}

// --- FaultyDisk ---

std::string InjectedCrash::Message(int after) {
  return fmt::format("injected crash after {} write(s) (ARCHPATCH_FAIL_AFTER_WRITES)", after);
}

bool FaultyDisk::CountWrite() {
  if (fault_ == Fault::crash && done_ >= allowed_) throw InjectedCrash(allowed_);
  return done_++ == allowed_;
}

namespace {

Error InjectedError(const fs::path& path) {
  return Error{fmt::format("cannot write '{}': Input/output error (injected by ARCHPATCH_FAIL_AFTER_WRITES)",
                           path.string()), {}};
}

}  // namespace

Status FaultyDisk::Replace(const fs::path& path, std::string_view bytes) {
  if (fault_ == Fault::crash && done_ >= allowed_) {
    // Die mid-write: the temporary file holds half the bytes, the target is untouched.
    (void)inner_.Replace(TempPathFor(path), bytes.substr(0, bytes.size() / 2));
  }
  if (CountWrite()) return InjectedError(path);
  return inner_.Replace(path, bytes);
}

Status FaultyDisk::Remove(const fs::path& path) {
  if (CountWrite()) return InjectedError(path);
  return inner_.Remove(path);
}

Status FaultyDisk::RemoveDir(const fs::path& path) {
  if (CountWrite()) return InjectedError(path);
  return inner_.RemoveDir(path);
}

Status FaultyDisk::MakeDirs(const fs::path& path) {
  if (CountWrite()) return InjectedError(path);
  return inner_.MakeDirs(path);
}

namespace {

class OwningFaultyDisk : public FaultyDisk {
 public:
  OwningFaultyDisk(std::unique_ptr<Disk> inner, int allowed, Fault fault)
      : FaultyDisk(*inner, allowed, fault), owned_(std::move(inner)) {}

 private:
  std::unique_ptr<Disk> owned_;
};

}  // namespace

std::unique_ptr<Disk> MakeDisk() {
  auto real = std::make_unique<RealDisk>();
  const char* fail_after = std::getenv("ARCHPATCH_FAIL_AFTER_WRITES");
  if (!fail_after || !*fail_after) return real;
  const std::string_view spec = fail_after;
  const FaultyDisk::Fault fault = spec.ends_with(":eio") ? FaultyDisk::Fault::error : FaultyDisk::Fault::crash;
  return std::make_unique<OwningFaultyDisk>(std::move(real), std::atoi(fail_after), fault);
}

}  // namespace archpatch::store
