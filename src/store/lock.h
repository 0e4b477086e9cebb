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

  EnvLock(EnvLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  EnvLock& operator=(EnvLock&&) = delete;
  ~EnvLock();

 private:
  explicit EnvLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

}  // namespace archpatch::store
