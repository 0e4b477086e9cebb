#include "hazard/features.h"

#include <gtest/gtest.h>

namespace archpatch::hazard {
namespace {

arch::Arch A(const char* name) { return *arch::ParseArch(name); }

const FeatureTable& Shipped() {
  static const FeatureTable table = [] {
    Result<FeatureTable> t = LoadFeatures(std::string(ARCHPATCH_SOURCE_DIR) + "/rules/features.yaml");
    EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error().str());
    return t.ok() ? *t : FeatureTable{};
  }();
  return table;
}

TEST(FeaturesTable, EveryEntryCitesAnNvidiaDocumentSection) {
  ASSERT_FALSE(Shipped().features.empty());
  for (const Feature& f : Shipped().features) {
    SCOPED_TRACE(f.id);
    EXPECT_FALSE(f.what.empty());
    const bool names_document =
        f.source.find("PTX ISA") != std::string::npos || f.source.find("Programming Guide") != std::string::npos;
    EXPECT_TRUE(names_document) << f.source;
    EXPECT_NE(f.source.find("section"), std::string::npos) << "no section named: " << f.source;
    EXPECT_NE(f.source.find("https://"), std::string::npos) << "no link: " << f.source;
    EXPECT_FALSE(f.ArchNames().empty());
  }
  EXPECT_NE(Shipped().portable_source.find("Programming Guide"), std::string::npos);
}

TEST(FeaturesTable, ArchListsMatchTheIsa) {
  const FeatureTable& t = Shipped();
  auto available = [&](const char* word, const char* arch) {
    const Feature* f = t.MatchPtx(word);
    return f && f->AvailableOn(A(arch));
  };
  EXPECT_TRUE(available("wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16", "sm_90a"));
  EXPECT_FALSE(available("wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16", "sm_90"));
  EXPECT_FALSE(available("wgmma.fence.sync.aligned", "sm_100a"));
  EXPECT_TRUE(available("tcgen05.mma.cta_group::1.kind::f16", "sm_100a"));
  EXPECT_TRUE(available("tcgen05.mma.cta_group::1.kind::f16", "sm_103f"));
  EXPECT_FALSE(available("tcgen05.mma.cta_group::1.kind::f16", "sm_120a"));
  EXPECT_FALSE(available("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32", "sm_100"));
  EXPECT_TRUE(available("griddepcontrol.wait", "sm_120"));
  EXPECT_FALSE(available("griddepcontrol.wait", "sm_89"));
  EXPECT_TRUE(available("cp.async.cg.shared.global", "sm_80"));
  EXPECT_FALSE(available("cp.async.cg.shared.global", "sm_75"));
  EXPECT_TRUE(available("ldmatrix.sync.aligned.m8n8.x4.shared.b16", "sm_75"));
  EXPECT_TRUE(
      available("mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.f32.e4m3.e4m3.f32.ue8m0", "sm_120a"));
  EXPECT_FALSE(
      available("mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.f32.e4m3.e4m3.f32.ue8m0", "sm_120"));
  EXPECT_FALSE(
      available("mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.f32.e4m3.e4m3.f32.ue8m0", "sm_100a"));
  EXPECT_TRUE(available("setmaxnreg.inc.sync.aligned.u32", "sm_120a"));
  EXPECT_FALSE(available("setmaxnreg.inc.sync.aligned.u32", "sm_90"));
}

TEST(FeaturesTable, TheMostSpecificGlobWins) {
  // cp.async.bulk.tensor is TMA (sm_90+), not Ampere's cp.async (sm_80+).
  const Feature* f = Shipped().MatchPtx("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->id, "cp.async.bulk.tensor");
  f = Shipped().MatchName("SM90_TMA_LOAD");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->id, "cp.async.bulk.tensor");
  f = Shipped().MatchName("SM90_64x128x16_F32BF16BF16_SS");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->id, "wgmma");
  EXPECT_EQ(Shipped().MatchPtx("add.f32"), nullptr);
}

TEST(FeaturesTable, GlobsStartingWithAWildcardMatchTextsOfAnyFirstByte) {
  // Look-ups try only the globs indexed under the text's first byte: a glob that starts with '*'
  // or '?' must be under every byte, and the best match must not depend on the index's order.
  Result<FeatureTable> t = ParseFeatures(
      "features:\n"
      "  - {id: wide, ptx: [\"*.bulk.*\"], names: [\"*_TMA_*\", \"?M90_X\"], arches: [sm_90+], source: s}\n"
      "  - {id: narrow, names: [\"SM90_TMA_LOAD\", \"SM90_*\"], arches: [sm_90a], source: s}\n",
      "f.yaml");
  ASSERT_TRUE(t.ok()) << t.error().str();
  auto id = [](const Feature* f) { return f ? f->id : std::string("none"); };
  EXPECT_EQ(id(t->MatchName("SM90_TMA_LOAD")), "narrow");  // fewer arches than `wide`
  EXPECT_EQ(id(t->MatchName("XM_TMA_Y")), "wide");
  EXPECT_EQ(id(t->MatchName("QM90_X")), "wide");
  EXPECT_EQ(id(t->MatchName("SM90_Y")), "narrow");
  EXPECT_EQ(id(t->MatchName("TMA")), "none");
  EXPECT_EQ(id(t->MatchName("")), "none");
  EXPECT_EQ(id(t->MatchPtx("cp.async.bulk.tensor")), "wide");
  const FeatureTable copy = *t;  // the index holds positions, not pointers: a copy still works
  EXPECT_EQ(id(copy.MatchName("XM_TMA_Y")), "wide");
}

TEST(ArchSpec, FamilyTakesTheArchSpecificMembersOfTheSameMajor) {
  EXPECT_TRUE(ArchSpecMatches("sm_100f", A("sm_103a")));
  EXPECT_TRUE(ArchSpecMatches("sm_100f", A("sm_100f")));
  EXPECT_FALSE(ArchSpecMatches("sm_100f", A("sm_100")));
  EXPECT_FALSE(ArchSpecMatches("sm_100f", A("sm_110f")));
  EXPECT_FALSE(ArchSpecMatches("sm_120f", A("sm_100a")));
  EXPECT_TRUE(ArchSpecMatches("sm_90+", A("sm_121")));
  EXPECT_FALSE(ArchSpecMatches("sm_90+", A("sm_89")));
  EXPECT_TRUE(ArchSpecMatches("sm_90a", A("sm_90a")));
  EXPECT_FALSE(ArchSpecMatches("sm_90a", A("sm_90")));
  EXPECT_FALSE(ArchSpecMatches("sm_90", A("sm_90")));  // ambiguous: write sm_90+ or sm_90a
}

TEST(FeaturesParse, MissingSourceIsAnErrorWithItsPlace) {
  Result<FeatureTable> t =
      ParseFeatures("features:\n  - id: x\n    what: y\n    ptx: [\"x.*\"]\n    arches: [sm_90+]\n", "f.yaml");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().str(), "f.yaml:2:5: feature 'x' has no 'source'");
}

TEST(FeaturesParse, UnknownKeysAndBadArchSpecsAreRefused) {
  Result<FeatureTable> t = ParseFeatures("features:\n  - id: x\n    sorce: s\n", "f.yaml");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().str(), "f.yaml:3:5: unknown key 'sorce' in a feature");
  t = ParseFeatures("features:\n  - id: x\n    ptx: [a]\n    arches: [sm_130a]\n    source: s\n", "f.yaml");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.error().message.find("'sm_130a' names no arch of the table"), std::string::npos);
}

// yaml-cpp's as<std::string>() throws on a key that is a list or a map; found by fuzz_features.
TEST(FeaturesParse, KeysThatAreNotStringsAreErrorsWithTheirPlace) {
  Result<FeatureTable> t = ParseFeatures("? [features]\n: x\n", "f.yaml");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().str(), "f.yaml:1:3: a key must be a string, found a list");
  t = ParseFeatures("features:\n  - ? {id: y}\n    : z\n", "f.yaml");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().str(), "f.yaml:2:7: a key must be a string, found a map");
  t = ParseFeatures("portable:\n  ? [names]\n  : [a]\n", "f.yaml");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().str(), "f.yaml:2:5: a key must be a string, found a list");
}

TEST(FeaturesParse, ASecondDocumentIsRefused) {
  Result<FeatureTable> t = ParseFeatures("features: []\n---\nfeatures: []\n", "f.yaml");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().str(), "f.yaml:2:1: a second YAML document; a file holds one");
}

TEST(Glob, StarsAndQuestionMarks) {
  EXPECT_TRUE(GlobMatch("wgmma.*", "wgmma.fence.sync.aligned"));
  EXPECT_FALSE(GlobMatch("wgmma.*", "wgmma"));
  EXPECT_TRUE(GlobMatch("mma.sync.*block_scale*", "mma.sync.aligned.m16n8k64.row.col.kind::mxf4.block_scale.f32"));
  EXPECT_TRUE(GlobMatch("SM75_U32x?_LDSM_N", "SM75_U32x4_LDSM_N"));
  EXPECT_FALSE(GlobMatch("SM75_U32x?_LDSM_N", "SM75_U32x44_LDSM_N"));
}

}  // namespace
}  // namespace archpatch::hazard
