#include "apply/lock.h"

#include <optional>

#include "store/lock.h"
#include "store/state_dir.h"

namespace archpatch::apply {
namespace {

class RealHeld : public HeldLock {
 public:
  explicit RealHeld(store::EnvLock lock) : lock_(std::move(lock)) {}
  ~RealHeld() override {
    if (lock_.created()) lock_.RemoveStateDirIfEmpty();  // still held: a waiter sees the file go
  }

 private:
  store::EnvLock lock_;
};

class NothingHeld : public HeldLock {};

class RecordedHeld : public HeldLock {
 public:
  explicit RecordedHeld(std::vector<std::string>& events) : events_(events) {}
  ~RecordedHeld() override { events_.push_back("unlock"); }

 private:
  std::vector<std::string>& events_;
};

}  // namespace

Result<std::unique_ptr<HeldLock>> RealLocker::Lock(const std::filesystem::path& site, LockMode mode) {
  std::error_code ec;
  if (mode == LockMode::shared && !std::filesystem::is_directory(site / store::kStateDirName, ec)) {
    return std::unique_ptr<HeldLock>(new NothingHeld);  // nothing to read, nothing to create
  }
  Result<store::EnvLock> lock = store::EnvLock::Acquire(
      site, mode == LockMode::shared ? store::EnvLock::Mode::shared : store::EnvLock::Mode::exclusive);
  if (!lock) return lock.error();
  return std::unique_ptr<HeldLock>(new RealHeld(std::move(*lock)));
}

Result<std::unique_ptr<HeldLock>> RecordingLocker::Lock(const std::filesystem::path&, LockMode mode) {
  events_.push_back(mode == LockMode::shared ? "lock shared" : "lock exclusive");
  return std::unique_ptr<HeldLock>(new RecordedHeld(events_));
}

}  // namespace archpatch::apply
