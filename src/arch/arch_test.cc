#include "arch/arch.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace archpatch::arch {
namespace {

TEST(ParseArch, AcceptsTheFormsUsersType) {
  for (const char* text : {"sm_120", "SM_120", "compute_120", "120", "12.0", "sm120"}) {
    Result<Arch> a = ParseArch(text);
    ASSERT_TRUE(a) << text << ": " << a.error().str();
    EXPECT_EQ(a->name(), "sm_120") << text;
  }
  EXPECT_EQ(ParseArch("sm_120a")->name(), "sm_120a");
  EXPECT_EQ(ParseArch("12.0a")->name(), "sm_120a");
  EXPECT_EQ(ParseArch("sm_100f")->name(), "sm_100f");
  EXPECT_EQ(ParseArch("compute_90a")->cuda_arch(), 900);
}

TEST(ParseArch, RefusesUnknownAndMalformedNames) {
  EXPECT_FALSE(ParseArch("sm_91"));
  EXPECT_FALSE(ParseArch("sm_90f"));  // nvcc 13 has no family variant of sm_90
  EXPECT_FALSE(ParseArch("banana"));
  EXPECT_FALSE(ParseArch("12."));
  EXPECT_NE(ParseArch("sm_91").error().message.find("sm_121"), std::string::npos);
}

// Issue 16, item 15: major * 10 overflowed int (undefined behaviour, UBSan's report) for a huge
// major; such a number is not an arch name at all.
TEST(ParseArch, RefusesAMajorThatWouldOverflow) {
  for (const char* text : {"429496849.6", "sm_2147483647.0", "99999999999"}) {
    Result<Arch> a = ParseArch(text);
    ASSERT_FALSE(a) << text;
    EXPECT_EQ(a.error().message, fmt::format("'{}' is not an arch name (try sm_120, sm_120a, 12.0 or 120)", text));
  }
}

TEST(ArchTable, ListsEveryNvcc13TargetWithVariants) {
  const auto& table = AllArches();
  EXPECT_EQ(table.front().name(), "sm_75");
  EXPECT_EQ(table.back().name(), "sm_121f");
  EXPECT_EQ(table.size(), 23u);
}

TEST(ArchSpecificMacroIn, FindsTheMacrosNvccDefinesOnlyForArchSpecificTargets) {
  EXPECT_EQ(ArchSpecificMacroIn("!defined(__CUDA_ARCH_FEAT_SM90_ALL)"), "__CUDA_ARCH_FEAT_SM90_ALL");
  EXPECT_EQ(ArchSpecificMacroIn("__CUDA_ARCH__ >= 1000 && defined(__CUDA_ARCH_FAMILY_SPECIFIC__)"),
            "__CUDA_ARCH_FAMILY_SPECIFIC__");
  EXPECT_EQ(ArchSpecificMacroIn("defined(__CUDA_ARCH_SPECIFIC__)"), "__CUDA_ARCH_SPECIFIC__");
  EXPECT_EQ(ArchSpecificMacroIn("__CUDA_ARCH__ >= 900 && __CUDA_ARCH__ < 1200"), "");
  EXPECT_EQ(ArchSpecificMacroIn("defined(MY__CUDA_ARCH_FEAT_SM90_ALL)"), "");  // another word
}

TEST(SassRunsOn, FollowsCudaBinaryCompatibility) {
  auto a = [](const char* n) { return *ParseArch(n); };
  EXPECT_TRUE(SassRunsOn(a("sm_80"), a("sm_86")));
  EXPECT_FALSE(SassRunsOn(a("sm_86"), a("sm_80")));
  EXPECT_FALSE(SassRunsOn(a("sm_90"), a("sm_100")));
  EXPECT_TRUE(SassRunsOn(a("sm_120"), a("sm_121")));
  EXPECT_FALSE(SassRunsOn(a("sm_120a"), a("sm_121")));
  EXPECT_TRUE(SassRunsOn(a("sm_120f"), a("sm_121")));
}

TEST(ReadArchName, ReadsTheSpellingsCodeUsesWithoutAskingForAKnownArch) {
  auto read = [](const char* text) {
    std::optional<ArchName> n = ReadArchName(text);
    return n ? n->text() : std::string("-");
  };
  EXPECT_EQ(read("sm_120a"), "sm_120a");
  EXPECT_EQ(read("SM100"), "sm_100");
  EXPECT_EQ(read("12.0f"), "sm_120f");
  EXPECT_EQ(read("9.0+PTX"), "compute_90");
  EXPECT_EQ(read("compute_90a"), "compute_90a");
  EXPECT_EQ(read("sm_130"), "sm_130");  // not built by nvcc 13, still an arch in code
  // Numbers that are no arch in code: too small, too large, too long, a second decimal.
  for (const char* text : {"1", "9", "300", "1.5", "20.0", "0120", "12.00", "sm_", "12.0+ptx+ptx", "-120"}) {
    EXPECT_EQ(read(text), "-") << text;
  }
}

TEST(NameMeans, APlainNameIsOneChipAFamilyNameItsFamilyAPtxNameWhereItJits) {
  auto name = [](const char* n) { return *ReadArchName(n); };
  auto a = [](const char* n) { return *ParseArch(n); };
  EXPECT_TRUE(NameMeans(name("8.0"), a("sm_80")));
  EXPECT_FALSE(NameMeans(name("8.0"), a("sm_86")));  // SassRunsOn would say yes: code lists chips
  EXPECT_TRUE(NameMeans(name("sm_90a"), a("sm_90")));
  EXPECT_TRUE(NameMeans(name("sm_100f"), a("sm_103")));
  EXPECT_FALSE(NameMeans(name("sm_100f"), a("sm_120")));
  EXPECT_TRUE(NameMeans(name("compute_90"), a("sm_120")));
  EXPECT_FALSE(NameMeans(name("compute_90a"), a("sm_120")));
}

TEST(ParseArch, RefusesAPtxSuffixAndTooManyDigits) {
  EXPECT_FALSE(ParseArch("9.0+PTX"));
  EXPECT_FALSE(ParseArch("sm_0120"));
}

}  // namespace
}  // namespace archpatch::arch
