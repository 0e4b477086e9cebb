#include "plan/known_unsafe.h"

#include <algorithm>

#include <gtest/gtest.h>

#include "plan/locate.h"

namespace archpatch::plan {
namespace {

arch::Arch A(const char* name) { return *arch::ParseArch(name); }

const char* kList = R"(entries:
  - id: moe
    distribution: FlashInfer_Python
    targets: [sm_120, sm_121]
    what: the MoE
    because: its cubins are sm100f only
    places:
      - file: flashinfer/jit/fused_moe.py
        scope: gen_moe_module
      - file: csrc/launcher.cu
        text: "major, 10"
  - id: runner
    targets: [sm_120]
    what: the runner
    because: tcgen05
    places:
      - file: flashinfer/fused_moe/runners.py
        scope: Runner
)";

std::vector<KnownUnsafe> List() {
  Result<std::vector<KnownUnsafe>> list = ParseKnownUnsafe(kList, "known-unsafe.yaml");
  EXPECT_TRUE(list) << list.error().str();
  return list ? *list : std::vector<KnownUnsafe>{};
}

TEST(KnownUnsafe, ParsesEntriesWithNormalisedDistributionAndArches) {
  std::vector<KnownUnsafe> list = List();
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[0].distribution, "flashinfer-python");
  ASSERT_EQ(list[0].targets.size(), 2u);
  EXPECT_EQ(list[0].targets[1].number(), 121);
  EXPECT_EQ(list[0].places[1].text, "major, 10");
  EXPECT_EQ(DoNotWiden(list[0]), "do not widen: the MoE, because its cubins are sm100f only");
}

TEST(KnownUnsafe, MatchesByPathSuffixScopeAndText) {
  std::vector<KnownUnsafe> list = List();
  const KnownUnsafe* hit = MatchKnownUnsafe(
      list, {"/t/flashinfer-0.6.6/flashinfer/jit/fused_moe.py", "gen_moe_module", "[10]"}, A("sm_120"));
  ASSERT_NE(hit, nullptr);
  EXPECT_EQ(hit->id, "moe");
  // Another builder of the same file, another file, a text the place does not name: no match.
  EXPECT_EQ(MatchKnownUnsafe(list, {"flashinfer/jit/fused_moe.py", "gen_cutlass_module", "[10]"}, A("sm_120")),
            nullptr);
  EXPECT_EQ(MatchKnownUnsafe(list, {"flashinfer/jit/fused_moe2.py", "gen_moe_module", "[10]"}, A("sm_120")), nullptr);
  EXPECT_NE(
      MatchKnownUnsafe(list, {"flashinfer/data/csrc/launcher.cu", "init", "TVM_FFI_ICHECK_EQ(major, 10)"}, A("sm_121")),
      nullptr);
  EXPECT_EQ(MatchKnownUnsafe(list, {"flashinfer/data/csrc/launcher.cu", "init", "major >= 9"}, A("sm_121")), nullptr);
}

TEST(KnownUnsafe, CodeNestedInTheScopeCounts) {
  std::vector<KnownUnsafe> list = List();
  EXPECT_NE(MatchKnownUnsafe(list, {"flashinfer/fused_moe/runners.py", "Runner.check_support", "x"}, A("sm_120")),
            nullptr);
  EXPECT_NE(MatchKnownUnsafe(list, {"flashinfer/fused_moe/runners.py", "Runner", "x"}, A("sm_120")), nullptr);
  EXPECT_EQ(MatchKnownUnsafe(list, {"flashinfer/fused_moe/runners.py", "MyRunner.check_support", "x"}, A("sm_120")),
            nullptr);
  EXPECT_TRUE(ScopeInside("ns::Runner::run", "Runner"));
  EXPECT_TRUE(ScopeInside("Outer.Runner.check", "Runner.check"));
  EXPECT_FALSE(ScopeInside("Runners.check", "Runner"));
}

TEST(KnownUnsafe, TargetsAreChipsAndDistributionsMustAgreeWhenKnown) {
  std::vector<KnownUnsafe> list = List();
  const GateView gate{"flashinfer/jit/fused_moe.py", "gen_moe_module", "[10]"};
  EXPECT_NE(MatchKnownUnsafe(list, gate, A("sm_120a")), nullptr);
  EXPECT_NE(MatchKnownUnsafe(list, gate, A("sm_121f")), nullptr);
  EXPECT_EQ(MatchKnownUnsafe(list, gate, A("sm_100")), nullptr);
  EXPECT_NE(MatchKnownUnsafe(list, gate, A("sm_120"), "flashinfer-python"), nullptr);
  EXPECT_EQ(MatchKnownUnsafe(list, gate, A("sm_120"), "vllm"), nullptr);
  // "runner" names sm_120 only.
  EXPECT_EQ(MatchKnownUnsafe(list, {"flashinfer/fused_moe/runners.py", "Runner", "x"}, A("sm_121")), nullptr);
}

// The audit matches every finding at once, each file's globs once: the answers are those of
// MatchKnownUnsafe finding by finding, a file's findings together or not, for any target.
TEST(KnownUnsafe, EachFindingMatchesAsAlone) {
  std::vector<KnownUnsafe> list = List();
  auto at = [](std::string file, std::string scope, std::string text) {
    Finding f;
    f.file = std::move(file), f.scope = std::move(scope), f.text = std::move(text);
    return f;
  };
  const std::vector<Finding> findings = {
      at("/t/flashinfer/data/csrc/launcher.cu", "init", "TVM_FFI_ICHECK_EQ(major, 10)"),
      at("/t/flashinfer/data/csrc/launcher.cu", "init", "major >= 9"),
      at("/t/flashinfer/fused_moe/runners.py", "Runner.check", "x"),
      at("/t/flashinfer/jit/fused_moe.py", "gen_moe_module", "[10]"),
      at("/t/flashinfer/jit/fused_moe.py", "gen_other_module", "[10]"),
      at("/t/flashinfer/data/csrc/launcher.cu", "run", "major, 10"),  // its file again, after others
      at("/t/other.py", "Runner", "x")};
  for (const char* target : {"sm_120", "sm_121", "sm_100"}) {
    const std::vector<const KnownUnsafe*> each = MatchEachFinding(findings, list, A(target));
    ASSERT_EQ(each.size(), findings.size());
    for (size_t i = 0; i < findings.size(); ++i) {
      const Finding& f = findings[i];
      EXPECT_EQ(each[i], MatchKnownUnsafe(list, {f.file, f.scope, f.text}, A(target))) << target << " " << i;
    }
  }
  const std::vector<const KnownUnsafe*> sm120 = MatchEachFinding(findings, list, A("sm_120"));
  EXPECT_EQ(std::count(sm120.begin(), sm120.end(), nullptr), 3);
}

TEST(KnownUnsafe, SchemaErrorsHaveAPlace) {
  Result<std::vector<KnownUnsafe>> bad = ParseKnownUnsafe(
      "entries:\n  - id: x\n    targets: [sm_120]\n    what: w\n    becuse: b\n    places: [{file: a.py}]\n",
      "ku.yaml");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().str().find("ku.yaml:5:5: unknown key 'becuse'"), std::string::npos) << bad.error().str();
  bad = ParseKnownUnsafe(
      "entries:\n  - id: x\n    targets: [sm_122]\n    what: w\n    because: b\n    places: [{file: a.py}]\n",
      "ku.yaml");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().str().find("ku.yaml:3:"), std::string::npos) << bad.error().str();
  bad = ParseKnownUnsafe("entries:\n  - id: x\n    targets: [sm_120]\n    what: w\n    because: b\n    places: []\n",
                         "ku.yaml");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().str().find("'places' must be a non-empty list"), std::string::npos) << bad.error().str();
  bad = ParseKnownUnsafe(
      "entries:\n  - {id: x, targets: [sm_120], what: w, because: b, places: [{file: a}]}\n  - {id: x, targets: "
      "[sm_120], what: w, because: b, places: [{file: a}]}\n",
      "ku.yaml");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().str().find("duplicate id 'x'"), std::string::npos) << bad.error().str();
}

// The shipped list parses and covers the case users hit: FlashInfer's trtllm-gen fused-MoE
// builder and launcher check (sm100f cubins, "Error occurred when running GEMM").
TEST(KnownUnsafe, ShippedListCoversTrtllmGenFusedMoe) {
  Result<std::vector<KnownUnsafe>> list =
      LoadKnownUnsafe(std::string(ARCHPATCH_SOURCE_DIR) + "/rules/known-unsafe.yaml");
  ASSERT_TRUE(list) << list.error().str();
  const KnownUnsafe* builder = MatchKnownUnsafe(
      *list, {"flashinfer/jit/fused_moe.py", "gen_trtllm_gen_fused_moe_sm100_module", "supported_major_versions=[10]"},
      A("sm_120"), "flashinfer-python");
  ASSERT_NE(builder, nullptr);
  EXPECT_EQ(builder->id, "flashinfer-trtllm-gen-fused-moe");
  EXPECT_NE(builder->because.find("sm100f"), std::string::npos);
  EXPECT_NE(builder->because.find("Error occurred when running GEMM"), std::string::npos);
  EXPECT_NE(MatchKnownUnsafe(*list,
                             {"flashinfer/data/csrc/trtllm_fused_moe_kernel_launcher.cu",
                              "FusedMoeLauncher::init_common", "TVM_FFI_ICHECK_EQ(major, 10)"},
                             A("sm_121"), "flashinfer-python"),
            nullptr);
  // The CUTLASS fused MoE's SM12x builder is not on the list.
  EXPECT_EQ(MatchKnownUnsafe(*list, {"flashinfer/jit/fused_moe.py", "gen_cutlass_fused_moe_sm120_module", "[12]"},
                             A("sm_120"), "flashinfer-python"),
            nullptr);
}

}  // namespace
}  // namespace archpatch::plan
