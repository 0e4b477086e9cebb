#include "scan/findings_order.h"

#include <algorithm>

#include <gtest/gtest.h>

namespace archpatch::scan {
namespace {

// Files 0-7, largest first as the walk's sizes give them: the long C/C++ files and those lexed
// ahead come before the Python modules, the files with runtime checks right after them, then
// the rest; each group keeps the size order.
TEST(FindingsRoundOrder, TheLongestWorkFirstThenModulesThenRuntimeChecks) {
  const std::vector<OrderFacts> facts = {
      {false, true, 2'900'000, false},   // 0: lexed ahead
      {false, false, 1'000'000, false},  // 1: long
      {true, false, 600'000, false},     // 2: a module larger than the next C/C++ file
      {false, false, 600'000, true},     // 3: long, with runtime checks
      {false, false, 300'000, false},    // 4: the rest
      {true, false, 50'000, false},      // 5: a module
      {false, false, 45'000, true},      // 6: runtime checks
      {false, false, 1'000, false},      // 7: the rest
  };
  const std::vector<size_t> largest_first = {0, 1, 2, 3, 4, 5, 6, 7};
  const std::vector<size_t> order = FindingsRoundOrder(largest_first, [&](size_t i) { return facts[i]; });
  EXPECT_EQ(order, (std::vector<size_t>{0, 1, 3, 2, 5, 6, 4, 7}));
}

TEST(FindingsRoundOrder, EveryFileOnce) {
  std::vector<size_t> largest_first;
  for (size_t i = 0; i < 100; ++i) largest_first.push_back(99 - i);
  const std::vector<size_t> order = FindingsRoundOrder(
      largest_first, [](size_t i) { return OrderFacts{i % 3 == 0, i % 7 == 0 && i % 3 != 0, i * 10'000, i % 5 == 0}; });
  std::vector<size_t> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  ASSERT_EQ(sorted.size(), 100u);
  for (size_t i = 0; i < 100; ++i) EXPECT_EQ(sorted[i], i);
}

}  // namespace
}  // namespace archpatch::scan
