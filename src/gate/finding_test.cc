#include "gate/finding.h"

#include <gtest/gtest.h>

namespace archpatch::gate {
namespace {

TEST(Kind, EveryKindNameParsesBack) {
  for (Kind k : {Kind::kCudaGate, Kind::kCppRuntimeGate, Kind::kPythonGate, Kind::kEmptyKernel, Kind::kWidenUnsafe,
                 Kind::kWidenUnknown, Kind::kBinaryCoverage}) {
    std::optional<Kind> parsed = ParseKind(KindName(k));
    ASSERT_TRUE(parsed) << KindName(k);
    EXPECT_EQ(*parsed, k);
  }
  EXPECT_EQ(KindName(Kind::kCudaGate), "cuda-gate");
  EXPECT_FALSE(ParseKind("cuda_gate"));
}

TEST(Verdicts, AnArchNotAuditedIsUnknown) {
  Finding f;
  f.verdict = {{"sm_120", Tri::kFalse}, {"sm_90", Tri::kTrue}};
  EXPECT_EQ(f.VerdictFor("sm_120"), Tri::kFalse);
  EXPECT_EQ(f.VerdictFor("sm_90"), Tri::kTrue);
  EXPECT_EQ(f.VerdictFor("sm_100"), Tri::kUnknown);
}

TEST(Block, CountsInclusiveLinesAndNoneWhenEmpty) {
  EXPECT_EQ((Block{3, 5, {}, {}, {}, std::nullopt}.lines()), 3);
  EXPECT_EQ((Block{4, 3, {}, {}, {}, std::nullopt}.lines()), 0);  // #if X / #endif with nothing between
}

TEST(Form, TellsHowTheGateIsWritten) {
  Finding f;
  EXPECT_EQ(f.directive(), nullptr);
  f.form = DirectiveForm{DirectiveKind::kElif, 7, "!(A) && B"};
  ASSERT_NE(f.directive(), nullptr);
  EXPECT_EQ(DirectiveName(f.directive()->directive), "elif");
  EXPECT_EQ(f.python(), nullptr);
}

TEST(SortFindings, ByFileLineColumnKeepingTiesInOrder) {
  std::vector<Finding> f(3);
  f[0].file = "b.cu", f[0].line = 1;
  f[1].file = "a.cu", f[1].line = 9, f[1].text = "first";
  f[2].file = "a.cu", f[2].line = 9, f[2].text = "second";
  SortFindings(f);
  EXPECT_EQ(f[0].text, "first");
  EXPECT_EQ(f[1].text, "second");
  EXPECT_EQ(f[2].file, "b.cu");
}

// The audit's workers each give their files' findings; a file's may come in two parts.
TEST(SortedFindings, MergesThePartsByPathBytesThenPlaceKeepingPartOrderOnTies) {
  auto at = [](std::string file, int line, std::string text) {
    Finding f;
    f.file = std::move(file), f.line = line, f.text = std::move(text);
    return f;
  };
  std::vector<Finding> one = {at("b.cu", 5, "b5"), at("a.cu", 2, "a2 first"), at("b.cu", 1, "b1")};
  std::vector<Finding> two = {at("a/x.cu", 1, "ax1"), at("a.cu", 2, "a2 second"), at("a.cu", 1, "a1")};
  std::vector<std::string> texts;
  for (const Finding& f : SortedFindings({&one, &two})) texts.push_back(f.text);
  // "a.cu" before "a/x.cu": '.' is below '/'.
  EXPECT_EQ(texts, (std::vector<std::string>{"a1", "a2 first", "a2 second", "ax1", "b1", "b5"}));
}

TEST(Names, TheClassesAndDirectionsLaterAnalysesUse) {
  EXPECT_EQ(ExclusionClassName(ExclusionClass::kFastPath), "fast-path");
  EXPECT_EQ(ExclusionClassName(ExclusionClass::kHardwareExclusive), "hardware-exclusive");
  EXPECT_EQ(DirectionName(Direction::kRefuses), "refuses");
  EXPECT_EQ(DirectionName(Direction::kFallback), "fallback");
  EXPECT_EQ(WidenSafetyName(WidenSafety::kSafe), "widen-safe");
  EXPECT_EQ(BlockHoldsName(BlockHolds::kDefines), "defines");
}

TEST(ExclusionClass, NamesParseBackAndOnlyLegacyAndOtherArchLetTheTargetIn) {
  for (ExclusionClass c : {ExclusionClass::kRefusal, ExclusionClass::kEmpty, ExclusionClass::kFastPath,
                           ExclusionClass::kHardwareExclusive, ExclusionClass::kLegacy, ExclusionClass::kOtherArch}) {
    EXPECT_EQ(ExclusionClassFromName(ExclusionClassName(c)), c);
    EXPECT_EQ(KeepsTargetOut(c), c != ExclusionClass::kLegacy && c != ExclusionClass::kOtherArch);
  }
  EXPECT_LT(ClassRank(ExclusionClass::kRefusal), ClassRank(ExclusionClass::kFastPath));  // the report's order
  EXPECT_EQ(ExclusionClassFromName("no-such-class"), ExclusionClass::kOtherArch);
}

}  // namespace
}  // namespace archpatch::gate
