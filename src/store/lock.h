// EnvLock: one archpatch run at a time per environment. flock(2) on .archpatch/lock: a second run
// waits until the first has finished, and a process that dies releases its lock with it.
#pragma once

#include <filesystem>

#include "util/result.h"

namespace archpatch::store {

class EnvLock {
 public:
  enum class Mode { shared, exclusive };

  // Creates <site-packages>/.archpatch/ if needed and blocks until the lock is held. A shared
  // lock (status, verify) lets readers run together; writers (apply, revert) are exclusive.
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

 private:
  EnvLock(int fd, std::filesystem::path dir, bool created) : fd_(fd), dir_(std::move(dir)), created_(created) {}
  int fd_ = -1;
  std::filesystem::path dir_;
  bool created_ = false;
};

}  // namespace archpatch::store
