#include "cuda/widen.h"

#include <gtest/gtest.h>

#include "cuda/condition.h"

namespace archpatch::cuda {
namespace {

std::vector<arch::Arch> Arches(std::string_view list) { return *arch::ParseArchList(list); }

std::string Widen(std::string_view text, WidenStrategy s, std::string_view targets = "sm_120,sm_121") {
  Result<std::string> r = WidenCondition(text, s, Arches(targets), MacroEnv{});
  EXPECT_TRUE(r.ok()) << text << ": " << (r.ok() ? "" : r.error().str());
  return r.ok() ? *r : "";
}

std::vector<std::string> Names(const std::vector<arch::Arch>& arches) {
  std::vector<std::string> names;
  for (const arch::Arch& a : arches) names.push_back(a.name());
  return names;
}

// The table arches the edit turned on.
std::vector<std::string> Blast(std::string_view before, std::string_view after) {
  Result<std::vector<arch::Arch>> flipped = NewlyTrue(before, after, MacroEnv{});
  EXPECT_TRUE(flipped.ok());
  return flipped.ok() ? Names(*flipped) : std::vector<std::string>{};
}

const std::vector<std::string> kSm12x = {"sm_120", "sm_120a", "sm_120f", "sm_121", "sm_121a", "sm_121f"};

TEST(WidenTest, StrategyNamesRoundTrip) {
  for (auto s : {WidenStrategy::kDropBound, WidenStrategy::kRaiseBound, WidenStrategy::kOrTarget}) {
    EXPECT_EQ(*ParseWidenStrategy(WidenStrategyName(s)), s);
  }
  EXPECT_EQ(ParseWidenStrategy("drop").error().message,
            "unknown widen strategy 'drop' (expected drop-bound, raise-bound or or-target)");
}

TEST(WidenTest, DropBoundRemovesTheExcludingConjunctAndItsOperator) {
  const std::string gate = "(defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 900) && (__CUDA_ARCH__ < 1200))";
  const std::string widened = Widen(gate, WidenStrategy::kDropBound);
  EXPECT_EQ(widened, "(defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 900))");
  // The blast radius: every arch at or above 1200 now compiles the block, not only the targets.
  EXPECT_EQ(Blast(gate, widened), kSm12x);
}

TEST(WidenTest, DropBoundKeepsSpacingCommentsAndOtherConjuncts) {
  EXPECT_EQ(Widen("__CUDA_ARCH__ < 1200  &&  defined(ENABLE_FP8) /* fp8 */", WidenStrategy::kDropBound),
            "defined(ENABLE_FP8) /* fp8 */");
  EXPECT_EQ(Widen("defined(__CUDA_ARCH__) && \\\n    (__CUDA_ARCH__ == 900 || __CUDA_ARCH__ == 1000) // sm90/100",
                  WidenStrategy::kDropBound),
            "defined(__CUDA_ARCH__) // sm90/100");
  EXPECT_EQ(Widen("A && (__CUDA_ARCH__ >= 800 && __CUDA_ARCH__ < 1000) && B", WidenStrategy::kDropBound),
            "A && (__CUDA_ARCH__ >= 800) && B");
}

TEST(WidenTest, DropBoundRefusesWhenNothingWouldBeLeft) {
  Result<std::string> r =
      WidenCondition("__CUDA_ARCH__ == 1000", WidenStrategy::kDropBound, Arches("sm_120"), MacroEnv{});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message,
            "drop-bound cannot widen '__CUDA_ARCH__ == 1000': every conjunct excludes a target; nothing would be left");
  r = WidenCondition("(__CUDA_ARCH__ >= 900 && __CUDA_ARCH__ < 1000) || X", WidenStrategy::kDropBound, Arches("sm_120"),
                     MacroEnv{});
  EXPECT_FALSE(r.ok());
}

TEST(WidenTest, RaiseBoundMovesTheLiteralJustEnough) {
  const std::string gate = "(defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 900) && (__CUDA_ARCH__ < 1200))";
  const std::string widened = Widen(gate, WidenStrategy::kRaiseBound);
  EXPECT_EQ(widened, "(defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 900) && (__CUDA_ARCH__ < 1220))");
  EXPECT_EQ(Blast(gate, widened), kSm12x);  // nothing beyond the sm_12x family
  EXPECT_EQ(Widen("__CUDA_ARCH__ <= 1000u", WidenStrategy::kRaiseBound, "sm_120"), "__CUDA_ARCH__ <= 1200u");
  EXPECT_EQ(Widen("1200 > __CUDA_ARCH__", WidenStrategy::kRaiseBound, "sm_120"), "1210 > __CUDA_ARCH__");
  EXPECT_EQ(Widen("__CUDA_ARCH__ >= 1300 && X", WidenStrategy::kRaiseBound, "sm_120"), "__CUDA_ARCH__ >= 1200 && X");
}

TEST(WidenTest, RaiseBoundPicksTheBoundWithTheSmallestBlastRadius) {
  const std::string gate =
      "(__CUDA_ARCH__ >= 800 && __CUDA_ARCH__ < 900) || (__CUDA_ARCH__ >= 1000 && __CUDA_ARCH__ < 1100)";
  const std::string widened = Widen(gate, WidenStrategy::kRaiseBound, "sm_120");
  EXPECT_EQ(widened,
            "(__CUDA_ARCH__ >= 800 && __CUDA_ARCH__ < 900) || (__CUDA_ARCH__ >= 1000 && __CUDA_ARCH__ < 1210)");
  // Raising `< 900` instead would also have turned on sm_90 and sm_90a.
  EXPECT_EQ(Blast(gate, widened),
            (std::vector<std::string>{"sm_110", "sm_110a", "sm_110f", "sm_120", "sm_120a", "sm_120f"}));
}

TEST(WidenTest, RaiseBoundRefusesWithoutABoundToMove) {
  Result<std::string> r =
      WidenCondition("__CUDA_ARCH__ == 1000", WidenStrategy::kRaiseBound, Arches("sm_120"), MacroEnv{});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message,
            "raise-bound cannot widen '__CUDA_ARCH__ == 1000': no arch-macro bound keeps the targets out");
  EXPECT_FALSE(
      WidenCondition("defined(__CUDA_ARCH_FEAT_SM100_ALL)", WidenStrategy::kRaiseBound, Arches("sm_120a"), MacroEnv{})
          .ok());
}

TEST(WidenTest, OrTargetAppendsOneAlternativePerTargetValue) {
  const std::string gate = "defined(__CUDA_ARCH_FEAT_SM100_ALL) // tcgen05";
  const std::string widened = Widen(gate, WidenStrategy::kOrTarget, "sm_120a,sm_120,sm_121a");
  EXPECT_EQ(widened,
            "defined(__CUDA_ARCH_FEAT_SM100_ALL) || (__CUDA_ARCH__ == 1200) || (__CUDA_ARCH__ == 1210) // tcgen05");
  EXPECT_EQ(Blast(gate, widened), kSm12x);
  EXPECT_EQ(Widen("__CUDA_ARCH__ == 900 ? 1 : 0", WidenStrategy::kOrTarget, "sm_120"),
            "(__CUDA_ARCH__ == 900 ? 1 : 0 || (__CUDA_ARCH__ == 1200))");
}

TEST(WidenTest, AlreadyTrueConditionComesBackUnchanged) {
  EXPECT_EQ(Widen("__CUDA_ARCH__ >= 800", WidenStrategy::kDropBound), "__CUDA_ARCH__ >= 800");
}

TEST(WidenTest, MalformedConditionIsAnError) {
  EXPECT_FALSE(WidenCondition("__CUDA_ARCH__ <", WidenStrategy::kOrTarget, Arches("sm_120"), MacroEnv{}).ok());
}

}  // namespace
}  // namespace archpatch::cuda
