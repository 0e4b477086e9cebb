#include "util/shared_loops.h"

#include <atomic>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace archpatch {
namespace {

// Alone, the owner runs every iteration itself, once.
TEST(SharedLoops, WithoutHelpersTheOwnerRunsEveryIteration) {
  SharedLoops loops;
  std::vector<int> calls(100, 0);
  loops.Run(calls.size(), [&](size_t i) { ++calls[i]; });
  EXPECT_EQ(std::set<int>(calls.begin(), calls.end()), std::set<int>{1});
}

// Threads waiting in HelpWhile take iterations of the owner's loop; each runs once, and the
// helpers leave when keep_waiting turns false.
TEST(SharedLoops, IdleThreadsTakeIterationsOfTheOwnersLoop) {
  SharedLoops loops;
  std::atomic<bool> round_over{false};
  std::atomic<int> helping{0};
  std::vector<std::thread> helpers;
  for (int t = 0; t < 4; ++t) {
    helpers.emplace_back([&] {
      ++helping;
      loops.HelpWhile([&] { return !round_over.load(); });
    });
  }
  while (helping < 4) std::this_thread::yield();
  std::vector<std::atomic<int>> calls(400);
  std::mutex mutex;
  std::set<std::thread::id> threads;
  loops.Run(calls.size(), [&](size_t i) {
    ++calls[i];
    std::this_thread::sleep_for(std::chrono::microseconds(200));  // long enough to be shared
    std::lock_guard<std::mutex> lock(mutex);
    threads.insert(std::this_thread::get_id());
  });
  for (const std::atomic<int>& c : calls) ASSERT_EQ(c.load(), 1);
  EXPECT_GT(threads.size(), 1u) << "no helper took an iteration";
  round_over = true;
  loops.Wake();
  for (std::thread& t : helpers) t.join();  // hangs if Wake did not reach them
}

// A throw on a helper reaches the owner, after the other iterations ran.
TEST(SharedLoops, AnExceptionInAnIterationIsThrownToTheOwner) {
  SharedLoops loops;
  std::atomic<bool> round_over{false};
  std::thread helper([&] { loops.HelpWhile([&] { return !round_over.load(); }); });
  std::atomic<int> ran{0};
  EXPECT_THROW(loops.Run(200,
                         [&](size_t i) {
                           ++ran;
                           if (i == 150) throw std::runtime_error("bad gate");
                         }),
               std::runtime_error);
  EXPECT_EQ(ran.load(), 200);
  round_over = true;
  loops.Wake();
  helper.join();
}

// RunInParts covers [0, count) once, in parts of at most `part` that start at its multiples; and
// InParts without loops, or with a count of one part, calls the work once over the whole range.
TEST(SharedLoops, PartsCoverTheRangeOnce) {
  SharedLoops loops;
  std::vector<int> calls(1000, 0);
  std::mutex mutex;
  std::vector<std::pair<size_t, size_t>> parts;
  loops.RunInParts(calls.size(), 64, [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) ++calls[i];
    std::lock_guard<std::mutex> lock(mutex);
    parts.emplace_back(begin, end);
  });
  EXPECT_EQ(std::set<int>(calls.begin(), calls.end()), std::set<int>{1});
  EXPECT_EQ(parts.size(), 16u);
  for (const auto& [begin, end] : parts) {
    EXPECT_EQ(begin % 64, 0u);
    EXPECT_EQ(end, std::min<size_t>(begin + 64, 1000));
  }
  std::vector<std::pair<size_t, size_t>> whole;
  auto note = [&](size_t begin, size_t end) { whole.emplace_back(begin, end); };
  InParts(nullptr, 1000, 64, note);
  InParts(&loops, 64, 64, note);
  InParts(&loops, 0, 64, note);
  EXPECT_EQ(whole, (std::vector<std::pair<size_t, size_t>>{{0, 1000}, {0, 64}}));
}

TEST(SharedLoops, NothingToRunCallsNothing) {
  SharedLoops loops;
  int calls = 0;
  loops.Run(0, [&](size_t) { ++calls; });
  EXPECT_EQ(calls, 0);
}

}  // namespace
}  // namespace archpatch
