// Loops whose iterations idle threads may share. A worker pool's round ends on its largest file
// (CUTLASS's 2.8-2.9 MB cute/arch/mma_sm90_gmma*_ext.hpp: 700 gates to classify on one worker
// while, on 16 cores, the 15 others were done 10-15 ms earlier). The worker on that file offers
// its per-gate loop here (Run); the other workers take iterations of it (HelpWhile) between
// their files and, once they have none left, instead of waiting for the round's end. Nothing runs
// on a thread of its own: with every worker busy, the owner runs its loop alone until one comes
// by (threads started for a big file's parts had competed with the busy workers, and were slower).
#pragma once

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <list>
#include <mutex>

namespace archpatch {

class SharedLoops {
 public:
  SharedLoops() = default;
  SharedLoops(const SharedLoops&) = delete;
  SharedLoops& operator=(const SharedLoops&) = delete;

  // Calls work(i) once for every i in [0, count), on this thread and on threads in HelpWhile;
  // returns when every call is done. The first exception a call throws is thrown here, after the
  // others are done.
  void Run(size_t count, const std::function<void(size_t)>& work);

  // Calls work(begin, end) for [0, count) in parts of `part` (the last may be shorter), as Run does.
  void RunInParts(size_t count, size_t part, const std::function<void(size_t begin, size_t end)>& work);

  // Runs iterations of the loops being Run until keep_waiting() is false; while there is none
  // to take, waits (without spinning) for a loop or for Wake(). keep_waiting is called with the
  // loops' lock held: it must be cheap and must not call back here. With one that says false, it
  // runs what is open and returns (a worker between two files).
  void HelpWhile(const std::function<bool()>& keep_waiting);

  // Makes the threads in HelpWhile ask keep_waiting again (what it reads has changed).
  void Wake();

  // Iterations run by threads in HelpWhile so far (the audit logs it at -vv).
  size_t helped() {
    std::lock_guard<std::mutex> lock(mutex_);
    return helped_;
  }

 private:
  struct Loop;
  size_t RunSome(Loop& loop);  // the iterations it ran
  Loop* Open();

  std::mutex mutex_;
  std::condition_variable changed_;
  std::list<Loop*> loops_;  // being Run, oldest first
  size_t helped_ = 0;       // under mutex_
};

// `loops`' RunInParts when it is given and the count makes two parts or more, else work(0, count)
// on this thread: for a loop that may or may not be offered (a file's, when it is large).
void InParts(SharedLoops* loops, size_t count, size_t part, const std::function<void(size_t begin, size_t end)>& work);

}  // namespace archpatch
