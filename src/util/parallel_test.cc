#include "util/parallel.h"

#include <mutex>
#include <set>
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

}  // namespace
}  // namespace archpatch
