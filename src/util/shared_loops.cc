#include "util/shared_loops.h"

#include <algorithm>
#include <atomic>
#include <exception>

namespace archpatch {

struct SharedLoops::Loop {
  Loop(size_t n, const std::function<void(size_t)>& w) : count(n), work(w) {}
  const size_t count;
  const std::function<void(size_t)>& work;
  std::atomic<size_t> next{0};  // the next iteration to take
  size_t done = 0;              // iterations run (under mutex_)
  int helpers = 0;              // threads of HelpWhile inside RunSome (under mutex_): the owner waits for them
  std::exception_ptr error;     // the first one (under mutex_)
};

void SharedLoops::Run(size_t count, const std::function<void(size_t)>& work) {
  if (count == 0) return;
  Loop loop(count, work);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    loops_.push_back(&loop);
  }
  if (count > 1) changed_.notify_all();
  RunSome(loop);
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [&] { return loop.done == loop.count && loop.helpers == 0; });
  loops_.remove(&loop);
  if (loop.error) std::rethrow_exception(loop.error);
}

void SharedLoops::RunInParts(size_t count, size_t part, const std::function<void(size_t, size_t)>& work) {
  part = std::max<size_t>(part, 1);
  Run((count + part - 1) / part, [&](size_t p) { work(p * part, std::min(count, (p + 1) * part)); });
}

void InParts(SharedLoops* loops, size_t count, size_t part, const std::function<void(size_t, size_t)>& work) {
  if (loops && count > part) return loops->RunInParts(count, part, work);
  if (count > 0) work(0, count);
}

// Takes iterations of `loop` until none is left; counts those it ran.
size_t SharedLoops::RunSome(Loop& loop) {
  size_t ran = 0;
  std::exception_ptr error;
  for (size_t i = loop.next++; i < loop.count; i = loop.next++) {
    try {
      loop.work(i);
    } catch (...) {
      if (!error) error = std::current_exception();
    }
    ++ran;
  }
  if (ran == 0) return 0;
  std::lock_guard<std::mutex> lock(mutex_);
  loop.done += ran;
  if (error && !loop.error) loop.error = error;
  if (loop.done == loop.count) changed_.notify_all();
  return ran;
}

// A loop with an iteration left to take, or nullptr; called with mutex_ held.
SharedLoops::Loop* SharedLoops::Open() {
  auto open = std::find_if(loops_.begin(), loops_.end(), [](const Loop* l) { return l->next < l->count; });
  return open == loops_.end() ? nullptr : *open;
}

void SharedLoops::HelpWhile(const std::function<bool()>& keep_waiting) {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    if (Loop* loop = Open()) {
      ++loop->helpers;  // the owner does not return, and `loop` stays alive, until this is back to 0
      lock.unlock();
      const size_t ran = RunSome(*loop);
      lock.lock();
      helped_ += ran;
      if (--loop->helpers == 0) changed_.notify_all();
      continue;
    }
    if (!keep_waiting()) return;
    changed_.wait(lock);
  }
}

void SharedLoops::Wake() {
  {
    std::lock_guard<std::mutex> lock(mutex_);  // a waiter between its keep_waiting() and its wait
  }
  changed_.notify_all();
}

}  // namespace archpatch
