// Threads kept for the whole process and lent to its parallel loops (util/parallel.h, the audit's
// rounds). An audit ran eight or so parallel stretches (the walk, the first read, the package-
// macro rounds, the findings round, the rule locations, `--json`), each starting its threads and
// joining them: 110 threads for FlashInfer + CUTLASS, each with its stack mapped, guarded,
// advised away at its end and mapped again, every one of those calls taking the address space's
// lock that the other threads' page faults wait on. The pool's threads start once and wait for
// work between the stretches.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace archpatch {

class WorkerPool {
 public:
  // The process's pool, started at the first use and never stopped (its threads wait for work
  // until the process ends).
  static WorkerPool& Shared();

  WorkerPool() = default;
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;
  ~WorkerPool();  // lets its threads end and joins them (no Run may be under way)

  // Calls body(slot) once for every slot in [0, slots) and returns when all have returned:
  // slot 0 on the calling thread, the others on the pool's free threads (started as needed, up
  // to slots - 1 of them), and on the caller after its own any that no thread took. So a call
  // never waits for a thread to come free: a loop run from a pool thread while every other is
  // busy runs on that thread alone. The first exception a body throws is thrown here, once every
  // slot taken is done.
  void Run(size_t slots, const std::function<void(size_t)>& body);

 private:
  struct Job;
  void Serve();  // a pool thread's life
  // Under mutex_: at least that many threads, the first of those missing started here and the
  // others by it (StartOthers), so that the caller goes on with its own slot meanwhile: the walk,
  // the audit's first loop, waited for fifteen threads started in turn.
  void Start(size_t threads);
  void StartOthers(size_t count);       // on a new thread: `count` more, half of them by those it starts
  void RunSlot(Job& job, size_t slot);  // body(slot), counted done
  bool Claim(Job& job, size_t& slot);   // under mutex_: the job's next slot, if any

  std::mutex mutex_;  // guards what follows and every Job's counts
  std::condition_variable work_;
  std::deque<Job*> open_;  // jobs with slots no thread has taken, oldest first
  std::vector<std::thread> threads_;
  size_t starting_ = 0;              // threads a StartOthers has still to start
  std::condition_variable started_;  // notified when starting_ reaches 0
  bool stopping_ = false;
};

}  // namespace archpatch
