#include "util/parallel.h"

#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace archpatch {
namespace {

// Every index is worked once, whatever the threads; results land where the index says.
TEST(ParallelFor, WorksEveryIndexOnceOnSeveralThreads) {
  for (int jobs : {1, 3, 16}) {
    std::vector<int> calls(1000, 0);
    std::mutex mutex;
    std::set<std::thread::id> threads;
    ParallelFor(calls.size(), jobs, [&](size_t i) {
      ++calls[i];  // each i is one thread's alone
      std::lock_guard<std::mutex> lock(mutex);
      threads.insert(std::this_thread::get_id());
    });
    EXPECT_EQ(std::set<int>(calls.begin(), calls.end()), std::set<int>{1}) << jobs << " jobs";
    EXPECT_LE(threads.size(), static_cast<size_t>(jobs));
  }
}

TEST(ParallelFor, NothingToDoStartsNoWork) {
  int calls = 0;
  ParallelFor(0, 8, [&](size_t) { ++calls; });
  EXPECT_EQ(calls, 0);
}

// The caller sees every result once, in index order, however the threads finish; no more than
// the window are made ahead of it. Helpers that found the window full wait until half of it is
// free: with windows of one to three slots too, none is left waiting.
TEST(ParallelInOrder, UsesEachResultOnceInOrderWithinTheWindow) {
  for (size_t window : {1, 2, 3, 64})
    for (int jobs : {1, 2, 5, 16}) {
      std::atomic<size_t> used{0}, most_ahead{0};
      std::vector<size_t> order;
      ParallelInOrder<std::string>(
          3000, jobs, window,
          [&](size_t i) {
            const size_t ahead = i - used.load();
            for (size_t m = most_ahead.load(); ahead > m && !most_ahead.compare_exchange_weak(m, ahead);) {
            }
            if (i % 7 == 0) std::this_thread::yield();  // finish out of order
            return std::to_string(i);
          },
          [&](size_t i, const std::string& made) {
            EXPECT_EQ(made, std::to_string(i));
            order.push_back(i);
            used = i + 1;
          });
      ASSERT_EQ(order.size(), 3000u) << jobs << " jobs";
      for (size_t i = 0; i < order.size(); ++i) ASSERT_EQ(order[i], i) << jobs << " jobs";
      EXPECT_LT(most_ahead.load(), window) << jobs << " jobs";
    }
}

// A failure on a helper thread reaches the caller as the exception, not as std::terminate.
TEST(ParallelInOrder, AnExceptionInMakeOrUseIsThrownToTheCaller) {
  for (int jobs : {1, 4}) {
    auto make = [](size_t i) {
      if (i == 500) throw std::runtime_error("bad element");
      return i;
    };
    EXPECT_THROW(ParallelInOrder<size_t>(2000, jobs, 16, make, [](size_t, size_t) {}), std::runtime_error);
    auto use = [](size_t i, size_t) {
      if (i == 3) throw std::invalid_argument("cannot print");
    };
    EXPECT_THROW(ParallelInOrder<size_t>(2000, jobs, 16, [](size_t i) { return i; }, use), std::invalid_argument);
  }
}

TEST(ParallelInOrder, NothingToDoCallsNothing) {
  int calls = 0;
  ParallelInOrder<int>(0, 8, 4, [&](size_t) { return ++calls; }, [&](size_t, int) { ++calls; });
  EXPECT_EQ(calls, 0);
}

}  // namespace
}  // namespace archpatch
