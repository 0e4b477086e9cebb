// The lock discipline of every command that reads or writes an environment's state
// (docs/architecture.md, "Locking"):
//   - apply and revert take the exclusive lock once, before recovery and planning, and hold it
//     to the end: a second writer waits its turn and then plans on what the first one left;
//   - status and verify take the shared lock for as long as they read the manifest, the journal
//     and the files; they need no write access and create nothing when there is no state folder;
//   - a dry run (--dry-run, --check) reads only: the shared lock, and only if the state exists;
//   - a writer that ends having written nothing (refused, nothing to do) leaves no state folder
//     behind when it had to create one for the lock.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "util/result.h"

namespace archpatch::apply {

enum class LockMode { shared, exclusive };

// A held lock; released when destroyed. A lock that had to create the state folder removes it
// again on release if the run left nothing in it but the lock file.
class HeldLock {
 public:
  virtual ~HeldLock() = default;
};

class Locker {
 public:
  virtual ~Locker() = default;
  // Blocks until held. A shared lock on an environment without a state folder holds nothing.
  virtual Result<std::unique_ptr<HeldLock>> Lock(const std::filesystem::path& site, LockMode mode) = 0;
};

// flock(2) on <site-packages>/.archpatch/lock (store/lock.h).
class RealLocker : public Locker {
 public:
  Result<std::unique_ptr<HeldLock>> Lock(const std::filesystem::path& site, LockMode mode) override;
};

// For tests: records "lock shared|exclusive" and "unlock" into `events`, which the test shares
// with a recording Disk to check the order of locking against reads and writes.
class RecordingLocker : public Locker {
 public:
  explicit RecordingLocker(std::vector<std::string>& events) : events_(events) {}
  Result<std::unique_ptr<HeldLock>> Lock(const std::filesystem::path& site, LockMode mode) override;

 private:
  std::vector<std::string>& events_;
};

}  // namespace archpatch::apply
