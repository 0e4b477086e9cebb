// The compatibility rules, one expectation per rule (docs/binaries.md cites each).
#include "binary/coverage.h"

#include <gtest/gtest.h>

namespace archpatch::binary {
namespace {

arch::Arch A(const char* name) { return *arch::ParseArch(name); }

BinaryFile With(std::vector<std::pair<ImageKind, const char*>> images) {
  BinaryFile file;
  for (auto [kind, name] : images) {
    Image image;
    image.kind = kind;
    image.arch = A(name);
    image.ptx_version = "9.0";
    file.images.push_back(image);
  }
  return file;
}

std::string Status(const BinaryFile& f, const char* target) {
  Coverage c = CoverageFor(f, A(target));
  return std::string(CoverageStatusName(c.status)) + (c.image.empty() ? "" : " " + c.image);
}

constexpr ImageKind kSass = ImageKind::kSass, kPtx = ImageKind::kPtx;

TEST(Coverage, SassRunsOnSameMajorWithEqualOrHigherMinor) {
  BinaryFile f = With({{kSass, "sm_80"}, {kSass, "sm_120"}});
  EXPECT_EQ(Status(f, "sm_86"), "native sm_80");
  EXPECT_EQ(Status(f, "sm_121"), "native sm_120");
  EXPECT_EQ(Status(f, "sm_90"), "no-image");  // another major
  EXPECT_EQ(Status(f, "sm_75"), "no-image");  // older
}

TEST(Coverage, ArchSpecificSassRunsOnlyOnThatChip) {
  BinaryFile f = With({{kSass, "sm_120a"}});
  EXPECT_EQ(Status(f, "sm_120"), "native sm_120a");
  EXPECT_EQ(Status(f, "sm_121"), "no-image");
}

TEST(Coverage, FamilySassRunsAcrossTheFamilyUpward) {
  BinaryFile f = With({{kSass, "sm_100f"}});
  EXPECT_EQ(Status(f, "sm_103"), "native sm_100f");
  EXPECT_EQ(Status(f, "sm_110"), "no-image");
  EXPECT_EQ(Status(With({{kSass, "sm_121f"}}), "sm_120"), "no-image");
}

TEST(Coverage, ALibraryLinkingARuntimeCompilerIsRuntimeBuilt) {
  BinaryFile f = With({{kSass, "sm_75"}});
  EXPECT_EQ(Status(f, "sm_120"), "no-image");
  f.runtime_compilers = {"libnvJitLink"};
  Coverage c = CoverageFor(f, A("sm_120"));
  EXPECT_EQ(c.status, CoverageStatus::kRuntimeBuilt);
  EXPECT_EQ(c.runtime_note, "uses libnvJitLink");
  EXPECT_EQ(Status(f, "sm_75"), "native sm_75");  // an image that fits still wins
}

TEST(Coverage, PlainPtxJitsOnAnyNewerArch) {
  BinaryFile f = With({{kPtx, "sm_80"}});
  EXPECT_EQ(Status(f, "sm_120"), "ptx-jit compute_80");
  EXPECT_EQ(Status(f, "sm_80"), "ptx-jit compute_80");
  EXPECT_EQ(Status(f, "sm_75"), "no-image");
}

TEST(Coverage, ArchSpecificPtxJitsOnlyOnThatChipAndFamilyPtxInTheFamily) {
  EXPECT_EQ(Status(With({{kPtx, "sm_90a"}}), "sm_90"), "ptx-jit compute_90a");
  EXPECT_EQ(Status(With({{kPtx, "sm_90a"}}), "sm_100"), "no-image");
  EXPECT_EQ(Status(With({{kPtx, "sm_120f"}}), "sm_121"), "ptx-jit compute_120f");
  EXPECT_EQ(Status(With({{kPtx, "sm_100f"}}), "sm_120"), "no-image");
}

TEST(Coverage, SassIsPreferredOverPtxAndTheHighestMatchIsNamed) {
  BinaryFile f = With({{kPtx, "sm_120"}, {kSass, "sm_80"}, {kSass, "sm_86"}, {kSass, "sm_90"}});
  EXPECT_EQ(Status(f, "sm_89"), "native sm_86");
  EXPECT_EQ(Status(f, "sm_120"), "ptx-jit compute_120");
}

TEST(Coverage, TheTargetsSuffixIsIgnoredAndRelocatableImagesNeverCount) {
  BinaryFile f = With({{kSass, "sm_120"}});
  EXPECT_EQ(Status(f, "sm_121a"), "native sm_120");
  f.images[0].relocatable = true;
  EXPECT_EQ(Status(f, "sm_120"), "no-image");
}

}  // namespace
}  // namespace archpatch::binary
