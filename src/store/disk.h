// Disk: every filesystem effect of the store goes through this small interface (ninja's
// DiskInterface), so that unit tests run on an in-memory fake, crash tests inject failures after
// any write, and a dry run is simply code that never calls it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace archpatch::store {

namespace fs = std::filesystem;

enum class FileKind { missing, file, dir, symlink, other };

// What lstat(2) says about a path (a final symlink is not followed).
struct FileInfo {
  FileKind kind = FileKind::missing;
  uint32_t mode = 0;  // permission bits only (07777)
  uint32_t uid = 0;
  uint32_t gid = 0;
  uint64_t nlink = 0;
  uint64_t size = 0;
  int64_t mtime_ns = 0;

  bool exists() const { return kind != FileKind::missing; }
  bool writable_by_mode() const { return (mode & 0222) != 0; }
};

class Disk {
 public:
  virtual ~Disk() = default;

  virtual Result<std::string> Read(const fs::path& path) = 0;
  virtual FileInfo Stat(const fs::path& path) = 0;
  // Names in a directory (not "." or ".."), sorted.
  virtual Result<std::vector<std::string>> List(const fs::path& dir) = 0;

  // The writes. Replace is atomic: a temporary file beside `path` gets the bytes, the old file's
  // mode and owner (0644 for a new file), is fsynced and renamed over `path`, and the directory is
  // fsynced; a reader sees the old bytes or the new ones, never a mix. Renaming also breaks a
  // hard link: the other names keep the old bytes.
  virtual Status Replace(const fs::path& path, std::string_view bytes) = 0;
  // Removes a file or a symlink (never what it points to); a missing path is fine.
  virtual Status Remove(const fs::path& path) = 0;
  // Removes an empty directory.
  virtual Status RemoveDir(const fs::path& path) = 0;
  virtual Status MakeDirs(const fs::path& path) = 0;
};

// The temporary name Replace writes before renaming: ".<name>.archpatch-tmp".
fs::path TempPathFor(const fs::path& path);
bool IsTempName(std::string_view name);

// The real filesystem, through POSIX calls.
class RealDisk : public Disk {
 public:
  Result<std::string> Read(const fs::path& path) override;
  FileInfo Stat(const fs::path& path) override;
  Result<std::vector<std::string>> List(const fs::path& dir) override;
  Status Replace(const fs::path& path, std::string_view bytes) override;
  Status Remove(const fs::path& path) override;
  Status RemoveDir(const fs::path& path) override;
  Status MakeDirs(const fs::path& path) override;
};

// An in-memory filesystem for unit tests: absolute paths to files, directories and symlinks.
class FakeDisk : public Disk {
 public:
  struct Node {
    FileKind kind = FileKind::file;
    std::string bytes;  // file contents or symlink target
    uint32_t mode = 0644;
    uint64_t nlink = 1;
  };

  void AddFile(const fs::path& path, std::string bytes, uint32_t mode = 0644);
  void AddSymlink(const fs::path& path, const fs::path& target);
  const std::map<fs::path, Node>& nodes() const { return nodes_; }
  int writes() const { return writes_; }

  Result<std::string> Read(const fs::path& path) override;
  FileInfo Stat(const fs::path& path) override;
  Result<std::vector<std::string>> List(const fs::path& dir) override;
  Status Replace(const fs::path& path, std::string_view bytes) override;
  Status Remove(const fs::path& path) override;
  Status RemoveDir(const fs::path& path) override;
  Status MakeDirs(const fs::path& path) override;

 private:
  void AddParents(const fs::path& path);
  std::map<fs::path, Node> nodes_;
  int writes_ = 0;
};

// Thrown by FaultyDisk in place of the write it was told to fail: the test's stand-in for the
// process dying (power cut, kill -9) at that point.
class InjectedCrash : public Fatal {
 public:
  explicit InjectedCrash(int after) : Fatal(Message(after)) {}
  static std::string Message(int after);
};

// Wraps a Disk and "crashes" at the write after the first `allowed_writes` ones. A failing
// Replace first leaves a half-written temporary file, as a real crash mid-write would. With
// Fault::error that one write fails with EIO instead (a full disk, a dying drive) and the
// process goes on; later writes succeed.
class FaultyDisk : public Disk {
 public:
  enum class Fault { crash, error };
  FaultyDisk(Disk& inner, int allowed_writes, Fault fault = Fault::crash)
      : inner_(inner), allowed_(allowed_writes), fault_(fault) {}

  Result<std::string> Read(const fs::path& path) override { return inner_.Read(path); }
  FileInfo Stat(const fs::path& path) override { return inner_.Stat(path); }
  Result<std::vector<std::string>> List(const fs::path& dir) override { return inner_.List(dir); }
  Status Replace(const fs::path& path, std::string_view bytes) override;
  Status Remove(const fs::path& path) override;
  Status RemoveDir(const fs::path& path) override;
  Status MakeDirs(const fs::path& path) override;

 private:
  // Whether this write is the one that fails with EIO (Fault::error); throws for Fault::crash.
  bool CountWrite();
  Disk& inner_;
  int allowed_;
  Fault fault_;
  int done_ = 0;
};

// The Disk the command line uses: RealDisk, wrapped in a FaultyDisk when the environment variable
// ARCHPATCH_FAIL_AFTER_WRITES=N (a crash) or N:eio (an I/O error) is set (tests of the real
// binary; read nowhere else).
std::unique_ptr<Disk> MakeDisk();

}  // namespace archpatch::store
