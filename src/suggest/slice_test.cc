#include "suggest/slice.h"

#include <gtest/gtest.h>

namespace archpatch::suggest {
namespace {

// A stand-in for "the rule still selects the same places": every line in `needed` must stay.
SamePlaces Needs(std::vector<std::string> needed, int* calls = nullptr) {
  return [needed, calls](std::string_view text) {
    if (calls) ++*calls;
    for (const std::string& n : needed) {
      if (text.find(n) == std::string_view::npos) return false;
    }
    return true;
  };
}

std::string Numbered(int n) {
  std::string s;
  for (int i = 1; i <= n; ++i) s += "line " + std::to_string(i) + "\n";
  return s;
}

TEST(SliceAroundGates, KeepsTheGateWithItsContextAndDropsTheRest) {
  const std::string text = Numbered(20);
  EXPECT_EQ(SliceAroundGates(text, {10}, Needs({})), "line 9\nline 10\nline 11\n");
}

TEST(SliceAroundGates, KeepsFarLinesTheTestNeedsAndOnlyThose) {
  const std::string text = Numbered(40);
  const std::string slice = SliceAroundGates(text, {30}, Needs({"line 3\n", "line 17\n"}));
  EXPECT_EQ(slice, "line 3\nline 17\nline 29\nline 30\nline 31\n");
}

TEST(SliceAroundGates, AUnitGoesWhole) {
  const std::string text = "a\nb = f(\n  1,\n  2)\nc\nd\ngate\n";
  // lines 2-4 are one statement: needing "1," keeps "b = f(" and "  2)" with it.
  EXPECT_EQ(SliceAroundGates(text, {7}, Needs({"  1,"}), {{2, 4, 0}}, {.context = 0}), "b = f(\n  1,\n  2)\ngate\n");
}

TEST(SliceAroundGates, KeepsTheUnitsAGateIsNestedIn) {
  const std::string text = "class A:\n    x = 1\n    def f(self):\n        y = 2\n        gate = [9]\n";
  const std::vector<LineUnit> units{{1, 1, 0}, {2, 2, 1}, {3, 3, 1}, {4, 4, 2}, {5, 5, 2}};
  int calls = 0;
  EXPECT_EQ(SliceAroundGates(text, {5}, Needs({}, &calls), units, {.context = 0}),
            "class A:\n    def f(self):\n        gate = [9]\n");
  EXPECT_EQ(calls, 1) << "with the structure known, one try drops everything else";
}

TEST(SliceAroundGates, StopsTryingAtTheBudgetAndKeepsWhatIsUndecided) {
  const std::string text = Numbered(64);
  int calls = 0;
  const std::string slice =
      SliceAroundGates(text, {64}, Needs({"line 1\n"}, &calls), {}, {.context = 0, .max_tries = 3});
  EXPECT_EQ(calls, 3);
  EXPECT_NE(slice.find("line 1\n"), std::string::npos);
  EXPECT_NE(slice.find("line 64\n"), std::string::npos);
}

TEST(SliceAroundGates, EndsWithANewline) { EXPECT_EQ(SliceAroundGates("x\ngate", {2}, Needs({})), "x\ngate\n"); }

}  // namespace
}  // namespace archpatch::suggest
