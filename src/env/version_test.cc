// PEP 440 examples (the spec's "Summary of permitted suffixes and relative ordering", its
// normalisation section and its specifier examples) and pypa/packaging's operator semantics.
#include "env/version.h"

#include <gtest/gtest.h>

namespace archpatch::env {
namespace {

Version V(std::string_view text) {
  Result<Version> v = ParseVersion(text);
  EXPECT_TRUE(v) << text;
  return v ? *v : Version{};
}

bool In(std::string_view spec, std::string_view version, bool allow_pre = false) {
  Result<SpecifierSet> set = SpecifierSet::Parse(spec);
  EXPECT_TRUE(set) << spec << ": " << (set ? "" : set.error().str());
  return set && set->Contains(version, allow_pre);
}

TEST(Version, NormalisesSpellings) {
  EXPECT_EQ(V("1.0-alpha1").str(), "1.0a1");
  EXPECT_EQ(V("1.0.BETA.2").str(), "1.0b2");
  EXPECT_EQ(V("1.0c1").str(), "1.0rc1");
  EXPECT_EQ(V("1.0pre").str(), "1.0rc0");
  EXPECT_EQ(V("1.0preview3").str(), "1.0rc3");
  EXPECT_EQ(V("1.0-1").str(), "1.0.post1");  // implicit post release
  EXPECT_EQ(V("1.0.rev2").str(), "1.0.post2");
  EXPECT_EQ(V("1.0.post").str(), "1.0.post0");
  EXPECT_EQ(V("v1.0dev").str(), "1.0.dev0");
  EXPECT_EQ(V("1!2.0+Ubuntu-1_2").str(), "1!2.0+ubuntu.1.2");
  EXPECT_EQ(V("  0.3.0rc1 ").str(), "0.3.0rc1");
}

TEST(Version, RefusesWhatIsNotPep440) {
  EXPECT_FALSE(ParseVersion("1.0-foo"));
  EXPECT_FALSE(ParseVersion("french toast"));
  EXPECT_FALSE(ParseVersion("1.0+"));
  EXPECT_FALSE(ParseVersion(""));
}

// Issue 16 "Also": found by fuzz_version. A release or local number beyond `long` threw
// std::out_of_range out of std::stol; a long input recursed in std::regex.
TEST(Version, HugeNumbersAndLongInputsAreErrorsNotExceptions) {
  Result<Version> v = ParseVersion("1." + std::string(30, '9'));
  ASSERT_FALSE(v);
  EXPECT_EQ(v.error().message, "'1." + std::string(30, '9') + "' is not a PEP 440 version (a number is too large)");
  v = ParseVersion(std::string(300, '1'));
  ASSERT_FALSE(v);
  EXPECT_NE(v.error().message.find("is longer than 256 bytes"), std::string::npos);
  Result<Version> a = ParseVersion("1.0+" + std::string(30, '9')), b = ParseVersion("1.0+" + std::string(31, '1'));
  ASSERT_TRUE(a && b);
  EXPECT_LT(CompareVersions(*a, *b), 0);
  EXPECT_EQ(CompareVersions(*ParseVersion("1.0+007"), *ParseVersion("1.0+7")), 0);
}

TEST(Version, SeparatorsBetweenSegments) {
  EXPECT_EQ(ParseVersion("1.0a.post1")->str(), "1.0a0.post1");
  EXPECT_EQ(ParseVersion("1.0-r1")->str(), "1.0.post1");
  EXPECT_EQ(ParseVersion("1.0a-dev")->str(), "1.0a0.dev0");
  EXPECT_EQ(ParseVersion(" V1.0PREVIEW2_POST_3-DEV.4+Ubuntu-1 ")->str(), "1.0rc2.post3.dev4+ubuntu.1");
  EXPECT_FALSE(ParseVersion("1.0."));
  EXPECT_FALSE(ParseVersion("1!"));
  EXPECT_FALSE(ParseVersion("1.0+a..b"));
}

TEST(Version, OrdersAsTheSpecSummaryDoes) {
  // PEP 440's example ordering of suffixes.
  const char* ordered[] = {"1.dev0",
                           "1.0.dev456",
                           "1.0a1",
                           "1.0a2.dev456",
                           "1.0a12.dev456",
                           "1.0a12",
                           "1.0b1.dev456",
                           "1.0b2",
                           "1.0b2.post345.dev456",
                           "1.0b2.post345",
                           "1.0rc1.dev456",
                           "1.0rc1",
                           "1.0",
                           "1.0+abc.5",
                           "1.0+abc.7",
                           "1.0+5",
                           "1.0.post456.dev34",
                           "1.0.post456",
                           "1.0.15",
                           "1.1.dev1",
                           "1!0.1"};
  for (size_t i = 0; i + 1 < std::size(ordered); ++i) {
    EXPECT_LT(CompareVersions(V(ordered[i]), V(ordered[i + 1])), 0) << ordered[i] << " < " << ordered[i + 1];
    EXPECT_GT(CompareVersions(V(ordered[i + 1]), V(ordered[i])), 0);
  }
  EXPECT_EQ(CompareVersions(V("1.0"), V("1.0.0")), 0);
  EXPECT_EQ(CompareVersions(V("1.0-1"), V("1.0.post1")), 0);
}

TEST(Specifier, RangesWithPreAndPostReleases) {
  EXPECT_TRUE(In(">=0.2.6,<0.4", "0.2.6"));
  EXPECT_TRUE(In(">=0.2.6,<0.4", "0.3.1"));
  EXPECT_FALSE(In(">=0.2.6,<0.4", "0.4"));
  EXPECT_FALSE(In(">=0.2.6,<0.4", "0.2.5"));
  EXPECT_TRUE(In(">=0.2.6,<0.4", "0.3.1+cu128"));  // local labels do not matter for ranges
  // "<0.4" keeps out 0.4's own pre-releases even when pre-releases are allowed.
  EXPECT_FALSE(In(">=0.2.6,<0.4", "0.4.0rc1", /*allow_pre=*/true));
  EXPECT_TRUE(In("<0.4rc2", "0.4.0rc1"));
  // ">1.0" keeps out 1.0's post-releases.
  EXPECT_FALSE(In(">1.0", "1.0.post1"));
  EXPECT_TRUE(In(">1.0.post1", "1.0.post2"));
  EXPECT_FALSE(In(">1.0", "1.0+local"));
  EXPECT_TRUE(In(">1.0", "1.0.1"));
  EXPECT_TRUE(In("<=1.0", "1.0+local"));
}

TEST(Specifier, PreReleasesOnlyWhenNamedOrAllowed) {
  EXPECT_FALSE(In(">=0.2.6,<0.4", "0.3.0rc1"));
  EXPECT_TRUE(In(">=0.2.6,<0.4", "0.3.0rc1", /*allow_pre=*/true));
  EXPECT_TRUE(In(">=0.3.0rc1", "0.3.0rc2"));   // an inclusive specifier names one
  EXPECT_FALSE(In("!=0.3.0rc1", "0.3.0rc2"));  // an exclusion does not
  EXPECT_FALSE(In("!=0.3.0rc1", "0.3.0rc1", true));
  EXPECT_TRUE(In("!=0.3.0rc1", "0.3.0"));
  EXPECT_FALSE(In(">=1.0", "2.0.dev1"));
}

TEST(Specifier, CompatibleRelease) {
  EXPECT_TRUE(In("~=0.3.1", "0.3.1"));
  EXPECT_TRUE(In("~=0.3.1", "0.3.9"));
  EXPECT_FALSE(In("~=0.3.1", "0.4.0"));
  EXPECT_FALSE(In("~=0.3.1", "0.3.0"));
  EXPECT_TRUE(In("~=2.2", "2.9"));
  EXPECT_FALSE(In("~=2.2", "3.0"));
  EXPECT_TRUE(In("~=1.4.5a4", "1.4.5"));
  EXPECT_TRUE(In("~=2.2.post3", "2.3"));
  EXPECT_FALSE(In("~=2.2.post3", "2.2"));
}

TEST(Specifier, EqualityWildcardsAndArbitrary) {
  EXPECT_TRUE(In("==0.3.*", "0.3.0"));
  EXPECT_TRUE(In("==0.3.*", "0.3.7.post1"));
  EXPECT_FALSE(In("==0.3.*", "0.4.0"));
  EXPECT_TRUE(In("==0.3", "0.3.0"));
  EXPECT_TRUE(In("==1.1", "1.1+cu128"));
  EXPECT_FALSE(In("==1.1+cu126", "1.1+cu128"));
  EXPECT_FALSE(In("!=1.*", "1.5"));
  EXPECT_TRUE(In("!=1.*", "2.0"));
  EXPECT_TRUE(In("===1.0", "1.0"));
  EXPECT_FALSE(In("===1.0", "1.0.0"));
  EXPECT_TRUE(In("===foobar", "foobar"));  // not PEP 440, but arbitrary equality matches
  EXPECT_TRUE(In("", "0.0.1"));
}

TEST(Specifier, RefusesMalformedSets) {
  for (const char* bad : {"0.3", ">=0.3,", ">=a.b", "~=1", ">=1.*", "==1.0rc1.*", "<1.0+local", "=>1.0"}) {
    EXPECT_FALSE(SpecifierSet::Parse(bad)) << bad;
  }
  EXPECT_EQ(SpecifierSet::Parse(" >= 0.2.6 , < 0.4 ")->str(), ">=0.2.6,<0.4");
}

}  // namespace
}  // namespace archpatch::env
