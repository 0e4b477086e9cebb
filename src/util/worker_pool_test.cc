#include "util/worker_pool.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace archpatch {
namespace {

// Every slot runs once, slot 0 on the caller; the threads are the same from one call to the next.
TEST(WorkerPool, RunsEverySlotOnceAndKeepsItsThreads) {
  WorkerPool pool;
  std::set<std::thread::id> seen;
  std::mutex mutex;
  for (int round = 0; round < 50; ++round) {
    std::vector<int> runs(6, 0);
    std::thread::id slot0;
    pool.Run(runs.size(), [&](size_t slot) {
      ++runs[slot];
      if (slot == 0) slot0 = std::this_thread::get_id();
      std::lock_guard<std::mutex> lock(mutex);
      seen.insert(std::this_thread::get_id());
    });
    ASSERT_EQ(std::set<int>(runs.begin(), runs.end()), std::set<int>{1}) << round;
    ASSERT_EQ(slot0, std::this_thread::get_id()) << round;
  }
  EXPECT_LE(seen.size(), 6u) << "threads started again for each call";
}

// Every slot asked for runs at the same time as the others, each on a thread of its own: the pool
// starts all the threads it lacks (the threads it starts start some of them).
TEST(WorkerPool, StartsEveryThreadALoopAsksFor) {
  for (size_t slots : {2, 7, 16, 16, 31}) {
    WorkerPool pool;
    std::mutex mutex;
    std::condition_variable all_in;
    size_t arrived = 0;
    bool gave_up = false;
    std::set<std::thread::id> threads;
    pool.Run(slots, [&](size_t) {
      std::unique_lock<std::mutex> lock(mutex);
      threads.insert(std::this_thread::get_id());
      if (++arrived == slots) all_in.notify_all();
      // Slots run one after the other on one thread would wait here for good: a deadline, after
      // which no slot waits.
      if (!all_in.wait_for(lock, std::chrono::seconds(5), [&] { return arrived == slots || gave_up; })) {
        gave_up = true;
        all_in.notify_all();
      }
    });
    EXPECT_FALSE(gave_up) << slots;
    EXPECT_EQ(threads.size(), slots);
  }
}

// A loop run from inside another, while every thread of the pool is busy in the outer one,
// finishes on the thread that runs it: no call waits for a thread to come free.
TEST(WorkerPool, ANestedLoopNeverWaitsForAFreeThread) {
  WorkerPool pool;
  std::atomic<int> inner{0};
  std::atomic<int> waiting{0};
  pool.Run(4, [&](size_t) {
    ++waiting;
    while (waiting.load() < 4) std::this_thread::yield();  // every slot busy at once
    pool.Run(8, [&](size_t) { ++inner; });
  });
  EXPECT_EQ(inner.load(), 32);
}

// The first call's threads are started by the first of them while the caller runs its slot: a
// call returns once its slots are done, whether or not every thread is up yet, and a pool dropped
// right after joins every thread it started (none left running, none counted twice).
TEST(WorkerPool, ThreadsStillStartingWhenTheFirstCallReturnsAreJoined) {
  for (int round = 0; round < 50; ++round) {
    std::atomic<int> runs{0};
    {
      WorkerPool pool;
      pool.Run(16, [&](size_t) { ++runs; });
      pool.Run(16, [&](size_t) { ++runs; });
    }
    ASSERT_EQ(runs.load(), 32) << round;
  }
}

TEST(WorkerPool, ThrowsTheFirstErrorOnceEverySlotIsDone) {
  WorkerPool pool;
  std::atomic<int> done{0};
  EXPECT_THROW(pool.Run(5,
                        [&](size_t slot) {
                          ++done;
                          if (slot == 3) throw std::runtime_error("slot 3");
                        }),
               std::runtime_error);
  EXPECT_EQ(done.load(), 5);
  int after = 0;
  pool.Run(1, [&](size_t) { ++after; });
  pool.Run(0, [&](size_t) { ++after; });
  EXPECT_EQ(after, 1);
}

}  // namespace
}  // namespace archpatch
