// Disk: every filesystem effect of the store goes through this small interface (ninja's
// DiskInterface), so that unit tests run on an in-memory fake, crash tests inject failures after
// any write, and a dry run is simply code that never calls it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "store/beneath.h"
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

// How Replace writes: the modification time to give the new file (revert restores the
// original's); empty: the time of the write.
struct ReplaceOptions {
  std::optional<int64_t> mtime_ns;
};

class Disk {
 public:
  virtual ~Disk() = default;

  // Every path below `root` is from now on opened without following a symlink at any component
  // (StateDir calls it with its site-packages folder). Only the real Disk needs it: the fake has
  // no symlinks to follow.
  virtual void ConfineBelow(const fs::path& root) { (void)root; }

  virtual Result<std::string> Read(const fs::path& path) = 0;
  // The file's bytes handed to `piece` in order, in bounded pieces where the Disk can (the real
  // one reads 64 KiB at a time: a RECORD check hashes libraries of a gigabyte). By default, one
  // piece: Read's bytes.
  virtual Status ReadPieces(const fs::path& path, const std::function<void(std::string_view)>& piece);
  virtual FileInfo Stat(const fs::path& path) = 0;
  // Names in a directory (not "." or ".."), sorted.
  virtual Result<std::vector<std::string>> List(const fs::path& dir) = 0;

  // The writes. Replace is atomic: a temporary file beside `path` gets the bytes, the old file's
  // mode, owner and extended attributes (user.*, security.* where permitted, ACLs; 0644 for a
  // new file), is fsynced and renamed over `path`, and the directory is fsynced; a reader sees
  // the old bytes or the new ones, never a mix. Renaming also breaks a hard link: the other
  // names keep the old bytes. A symlink at `path` is replaced, never written through.
  virtual Status Replace(const fs::path& path, std::string_view bytes, const ReplaceOptions& options) = 0;
  Status Replace(const fs::path& path, std::string_view bytes) { return Replace(path, bytes, {}); }
  // Removes a file or a symlink (never what it points to); a missing path is fine.
  virtual Status Remove(const fs::path& path) = 0;
  // Removes an empty directory.
  virtual Status RemoveDir(const fs::path& path) = 0;
  virtual Status MakeDirs(const fs::path& path) = 0;
};

// The temporary name Replace writes before renaming: ".<name>.archpatch-tmp".
fs::path TempPathFor(const fs::path& path);
bool IsTempName(std::string_view name);

// The real filesystem, through POSIX calls (real_disk.cc). Below the root it is confined to,
// every component is opened with O_NOFOLLOW from the root's descriptor down (store/beneath.h) and
// each operation works on the file's directory descriptor: a symlink met on the way is an error
// (Stat reports FileKind::symlink), and a folder swapped for a symlink after a check cannot
// redirect a write. Read refuses anything but a regular file (a FIFO would hang).
class RealDisk : public Disk {
 public:
  RealDisk() = default;
  explicit RealDisk(const fs::path& root) { ConfineBelow(root); }

  void ConfineBelow(const fs::path& root) override;
  Result<std::string> Read(const fs::path& path) override;
  Status ReadPieces(const fs::path& path, const std::function<void(std::string_view)>& piece) override;
  FileInfo Stat(const fs::path& path) override;
  Result<std::vector<std::string>> List(const fs::path& dir) override;
  using Disk::Replace;
  Status Replace(const fs::path& path, std::string_view bytes, const ReplaceOptions& options) override;
  Status Remove(const fs::path& path) override;
  Status RemoveDir(const fs::path& path) override;
  Status MakeDirs(const fs::path& path) override;

 private:
  struct Located {
    UniqueFd dir;      // the directory holding the path's last component
    std::string name;  // that component
    int error = 0;     // errno when the directory could not be opened
    bool below = false;
  };
  Located Locate(const fs::path& path, bool create) const;
  fs::path root_;
};

// An in-memory filesystem for unit tests: absolute paths to files, directories and symlinks.
class FakeDisk : public Disk {
 public:
  struct Node {
    FileKind kind = FileKind::file;
    std::string bytes;  // file contents or symlink target
    uint32_t mode = 0644;
    uint64_t nlink = 1;
    int64_t mtime_ns = 0;
  };

  void AddFile(const fs::path& path, std::string bytes, uint32_t mode = 0644);
  void AddSymlink(const fs::path& path, const fs::path& target);
  const std::map<fs::path, Node>& nodes() const { return nodes_; }
  int writes() const { return writes_; }

  Result<std::string> Read(const fs::path& path) override;
  FileInfo Stat(const fs::path& path) override;
  Result<std::vector<std::string>> List(const fs::path& dir) override;
  using Disk::Replace;
  Status Replace(const fs::path& path, std::string_view bytes, const ReplaceOptions& options) override;
  Status Remove(const fs::path& path) override;
  Status RemoveDir(const fs::path& path) override;
  Status MakeDirs(const fs::path& path) override;

 private:
  void AddParents(const fs::path& path);
  std::map<fs::path, Node> nodes_;
  int writes_ = 0;
  int64_t clock_ = 0;  // the fake's clock: each write gets a later mtime
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
// process goes on; later writes succeed. With `stop_before` >= 0 the process stops itself
// (SIGSTOP) before that write, so that a test can change the tree between a check and a write
// (a real race, made deterministic).
class FaultyDisk : public Disk {
 public:
  enum class Fault { crash, error };
  FaultyDisk(Disk& inner, int allowed_writes, Fault fault = Fault::crash, int stop_before = -1)
      : inner_(inner), allowed_(allowed_writes), fault_(fault), stop_before_(stop_before) {}

  void ConfineBelow(const fs::path& root) override { inner_.ConfineBelow(root); }
  Result<std::string> Read(const fs::path& path) override { return inner_.Read(path); }
  Status ReadPieces(const fs::path& path, const std::function<void(std::string_view)>& piece) override {
    return inner_.ReadPieces(path, piece);
  }
  FileInfo Stat(const fs::path& path) override { return inner_.Stat(path); }
  Result<std::vector<std::string>> List(const fs::path& dir) override { return inner_.List(dir); }
  using Disk::Replace;
  Status Replace(const fs::path& path, std::string_view bytes, const ReplaceOptions& options) override;
  Status Remove(const fs::path& path) override;
  Status RemoveDir(const fs::path& path) override;
  Status MakeDirs(const fs::path& path) override;

 private:
  // Whether this write is the one that fails with EIO (Fault::error); throws for Fault::crash.
  bool CountWrite();
  Disk& inner_;
  int allowed_;
  Fault fault_;
  int stop_before_;
  int done_ = 0;
};

// The Disk the command line uses: RealDisk, wrapped in a FaultyDisk when the environment variable
// ARCHPATCH_FAIL_AFTER_WRITES=N (a crash) or N:eio (an I/O error), or ARCHPATCH_STOP_BEFORE_WRITE=N
// (race tests: SIGSTOP before write N, counted from 0) is set (tests of the real binary; read
// nowhere else).
std::unique_ptr<Disk> MakeDisk();

}  // namespace archpatch::store
