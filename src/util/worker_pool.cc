#include "util/worker_pool.h"

#include <algorithm>
#include <exception>
#include <system_error>

namespace archpatch {

struct WorkerPool::Job {
  Job(const std::function<void(size_t)>& body, size_t slots) : body(&body), slots(slots) {}
  const std::function<void(size_t)>* body;
  size_t slots;
  size_t next = 1;  // slot 0 is the caller's
  size_t done = 0;
  std::exception_ptr error;
  std::condition_variable finished;
};

WorkerPool& WorkerPool::Shared() {
  static WorkerPool* const pool = new WorkerPool();  // never destroyed: its threads outlive main
  return *pool;
}

void WorkerPool::Run(size_t slots, const std::function<void(size_t)>& body) {
  if (slots <= 1) {
    if (slots == 1) body(0);
    return;
  }
  Job job(body, slots);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    Start(slots - 1);
    open_.push_back(&job);
  }
  work_.notify_all();
  RunSlot(job, 0);
  std::unique_lock<std::mutex> lock(mutex_);
  for (size_t slot; Claim(job, slot);) {  // the slots no thread took
    lock.unlock();
    RunSlot(job, slot);
    lock.lock();
  }
  job.finished.wait(lock, [&] { return job.done == job.slots; });
  if (job.error) std::rethrow_exception(job.error);
}

bool WorkerPool::Claim(Job& job, size_t& slot) {
  if (job.next >= job.slots) return false;
  slot = job.next++;
  if (job.next == job.slots) open_.erase(std::find(open_.begin(), open_.end(), &job));  // all taken
  return true;
}

void WorkerPool::RunSlot(Job& job, size_t slot) {
  std::exception_ptr error;
  try {
    (*job.body)(slot);
  } catch (...) {
    error = std::current_exception();
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (error && !job.error) job.error = error;
  // The caller may return and drop the job as soon as the lock is released.
  if (++job.done == job.slots) job.finished.notify_all();
}

WorkerPool::~WorkerPool() {
  {
    std::unique_lock<std::mutex> lock(mutex_);
    started_.wait(lock, [&] { return starting_ == 0; });  // threads_ is complete
    stopping_ = true;
  }
  work_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void WorkerPool::Start(size_t threads) {
  if (threads_.size() + starting_ >= threads) return;
  const size_t more = threads - threads_.size() - starting_;
  threads_.emplace_back([this, others = more - 1] {
    StartOthers(others);
    Serve();
  });
  // Counted once the first has started (a start that throws leaves nothing to wait for); it
  // counts them down under mutex_, held here.
  starting_ += more - 1;
}

// Each thread started here starts part of the rest itself, so that the starts run side by side:
// fifteen started in turn by one thread were up 1.2-1.5 ms after the walk began on the GPU
// machine, the walk's folders listed by fewer threads meanwhile.
void WorkerPool::StartOthers(size_t count) {
  while (count > 0) {
    const size_t theirs = (count - 1) / 2;  // what the new thread starts itself
    std::thread thread;
    try {
      thread = std::thread([this, theirs] {
        StartOthers(theirs);
        Serve();
      });
    } catch (const std::system_error&) {  // no more threads: Run never waits for one
      std::lock_guard<std::mutex> lock(mutex_);
      starting_ -= count;  // this one and those it would have started
      return started_.notify_all();
    }
    std::lock_guard<std::mutex> lock(mutex_);
    threads_.push_back(std::move(thread));
    if (--starting_ == 0) started_.notify_all();
    count -= 1 + theirs;
  }
}

void WorkerPool::Serve() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    work_.wait(lock, [&] { return stopping_ || !open_.empty(); });
    if (stopping_) return;
    Job& job = *open_.front();  // an open job has a slot left
    size_t slot = 0;
    Claim(job, slot);
    lock.unlock();
    RunSlot(job, slot);
    lock.lock();
  }
}

}  // namespace archpatch
