// EnvLock: one archpatch run at a time per environment. flock(2) on .archpatch/lock: a second run
// waits until the first has finished, and a process that dies releases its lock with it.
//
// How the lock file is opened (docs/manifest.md, "Locking"): from the site-packages folder's
// descriptor down with O_NOFOLLOW (store/beneath.h), so a symlinked .archpatch or lock is refused,
// never written through. Writers (apply, revert) create .archpatch/ and the lock file and hold an
// exclusive lock. Readers (status, verify) never create anything: they open an existing lock
// file read-only and hold a shared lock; when there is none, or it cannot be opened (a user who
// may only read the environment), they run unlocked. Writers replace the manifest atomically, so
// an unlocked reader still reads a whole manifest; it may see a transaction that is running as
// half done. Which command takes which lock, and when, is the caller's (the apply stage).
#pragma once

#include <filesystem>

#include "util/result.h"

namespace archpatch::store {

class EnvLock {
 public:
  enum class Mode { shared, exclusive };

  // Blocks until the lock is held. Exclusive: creates <site-packages>/.archpatch/ and its lock
  // file if needed. Shared: creates nothing, and holds no lock where there is no lock file it may
  // open (held() is false then).
  static Result<EnvLock> Acquire(const std::filesystem::path& site_packages, Mode mode);

  EnvLock(EnvLock&& other) noexcept : fd_(other.fd_), dir_(std::move(other.dir_)), created_(other.created_) {
    other.fd_ = -1;
  }
  EnvLock& operator=(EnvLock&&) = delete;
  ~EnvLock();

  // Whether taking the lock created .archpatch/.
  bool created() const { return created_; }
  // For a run that wrote nothing after creating .archpatch/ for its lock: removes the lock file
  // and the folder if nothing else is in it, while still holding the lock. A waiter that held the
  // removed file open notices (Acquire checks that its file is still the one at the path) and
  // takes the lock again on a fresh file.
  void RemoveStateDirIfEmpty();
  // False for a reader that found no lock file it may open and runs unlocked.
  bool held() const { return fd_ >= 0; }

 private:
  EnvLock(int fd, std::filesystem::path dir, bool created) : fd_(fd), dir_(std::move(dir)), created_(created) {}
  int fd_ = -1;
  std::filesystem::path dir_;
  bool created_ = false;
};

}  // namespace archpatch::store
