#include "scan/artifacts.h"

#include <gtest/gtest.h>

#include "binary/test_cubin.h"
#include "env/test_tree.h"

namespace archpatch::scan {
namespace {

using env::testing::TempTree;

// Modelled on FlashInfer's flashinfer/artifacts.py (0.6.x): a frozen dataclass of cubin-cache
// folders, one per artifact group, and a per-arch list beside one of them.
const char* kArtifacts = R"(from dataclasses import dataclass


@dataclass(frozen=True)
class ArtifactPath:
    """Folders of the cubins in the artifactory."""

    TRTLLM_GEN_BMM: str = (
        "5988e15c0e6d006c6a64c0f6c6748b4d3150c1af/batched_gemm-3d40263-3e19f0a/"
    )
    DSL_FMHA: str = "801e770219613fbf088bc074c414732b26cc550d/fmha/cute-dsl/"
    DSL_FMHA_ARCHS: tuple[str, ...] = ("sm_100a", "sm_103a")


class CheckSumHash:
    TRTLLM_GEN_BMM: str = "b19ed6c8"
)";

const char* kGenerator = R"(from ..artifacts import ArtifactPath

FMHA_PATH = ArtifactPath.DSL_FMHA


def gen_bmm_module(enable_rubin=False):
    """Uses ArtifactPath.NOT_A_GROUP in its docstring only."""
    include = f"{ArtifactPath.TRTLLM_GEN_BMM}/include"
    return gen_jit_spec("bmm", [CSRC / "bmm_launcher.cu", "runner.cpp"], flags=[include, "-DBMM_CUBIN_PATH"])


def load_fmha():
    return FMHA_PATH + "/x.so"
)";

// deep_gemm.py's form: a helper names the groups, the function that loads the cubin calls it;
// moe_utils.py's: a generator fetches a group's headers only and compiles from source.
const char* kHelpers = R"(from .artifacts import ArtifactPath


def get_artifact_path():
    return ArtifactPath.DSL_FMHA


def load(name):
    return get_artifact(get_artifact_path() + "/" + name + ".cubin")


def gen_headers_only_module():
    headers = f"{ArtifactPath.TRTLLM_GEN_BMM}/include/export"
    return gen_jit_spec("utils", ["utils.cu"], include=[headers])
)";

TEST(IndexArtifacts, ALoaderLoadsABinaryAHeaderUserIsNone) {
  TempTree tree;
  tree.Write("flashinfer/artifacts.py", kArtifacts);
  tree.Write("flashinfer/deep_gemm.py", kHelpers);
  const ArtifactIndex index = IndexArtifacts({tree.root().string()});
  ASSERT_EQ(index.loaders.size(), 1u);
  EXPECT_EQ(index.loaders[0].scope, "get_artifact_path");
  EXPECT_EQ(index.loaders_by_name.count("gen_headers_only_module"), 0u);
}

TEST(ArchNamesIn, ReadsTheFormsArtifactNamesUse) {
  EXPECT_EQ(ArchNamesIn("BatchedGemmKernel_E2m1_t128x8_sm100f.cubin"), std::vector<std::string>{"sm_100f"});
  EXPECT_EQ(ArchNamesIn("FmhaSm100aKernel_QkvE4m3.cubin"), std::vector<std::string>{"sm_100a"});
  EXPECT_EQ(ArchNamesIn("x86_64/sm_103a/kernel.so"), std::vector<std::string>{"sm_103a"});
  EXPECT_EQ(ArchNamesIn("cudnn_sm100_fprop_sdpa_prefill_d128_bf16.cubin"), std::vector<std::string>{"sm_100"});
  EXPECT_EQ(ArchNamesIn("sm90_and_sm120a"), (std::vector<std::string>{"sm_90", "sm_120a"}));
  // Inside a word, or too many digits: not an arch.
  EXPECT_TRUE(ArchNamesIn("cosm100 prism1000 kernel.cubin").empty());
  // A letter after the variant belongs to the word: sm100 + "all".
  EXPECT_EQ(ArchNamesIn("sm100all"), std::vector<std::string>{"sm_100"});
}

TEST(ReadModuleArtifacts, DeclaredGroupsAndTheirArchList) {
  const ModuleArtifacts m = ReadModuleArtifacts("flashinfer/artifacts.py", kArtifacts);
  ASSERT_EQ(m.groups.size(), 2u);
  EXPECT_EQ(m.groups[0].name, "TRTLLM_GEN_BMM");
  EXPECT_EQ(m.groups[0].path, "5988e15c0e6d006c6a64c0f6c6748b4d3150c1af/batched_gemm-3d40263-3e19f0a");
  EXPECT_EQ(m.groups[0].declared, "flashinfer/artifacts.py:8");
  EXPECT_TRUE(m.groups[0].arches.empty());
  EXPECT_EQ(m.groups[1].name, "DSL_FMHA");
  EXPECT_EQ(m.groups[1].arches, (std::set<std::string>{"sm_100a", "sm_103a"}));
  EXPECT_EQ(m.groups[1].from, gate::ArchesFrom::kDeclaredList);
  // CheckSumHash holds the same names, but only ArtifactPath declares groups.
  EXPECT_TRUE(m.refs.empty());
}

TEST(ReadModuleArtifacts, FunctionsNamingGroupsAndTheSourcesTheyCompile) {
  const ModuleArtifacts m = ReadModuleArtifacts("flashinfer/jit/bmm.py", kGenerator);
  using Pair = std::pair<std::string, std::string>;
  // The f-string's replacement field and the module-level alias both count; the docstring does not.
  EXPECT_EQ(m.refs, (std::vector<Pair>{{"gen_bmm_module", "TRTLLM_GEN_BMM"}, {"load_fmha", "DSL_FMHA"}}));
  EXPECT_EQ(m.sources, (std::vector<Pair>{{"gen_bmm_module", "bmm_launcher.cu"}, {"gen_bmm_module", "runner.cpp"}}));
}

using binary::testing::CubinHeader;

TEST(IndexArtifacts, InstalledCubinsGiveEachGroupItsArches) {
  TempTree tree;
  tree.Write("flashinfer/artifacts.py", kArtifacts);
  tree.Write("flashinfer/jit/bmm.py", kGenerator);
  const std::string bmm =
      "flashinfer_cubin/cubins/5988e15c0e6d006c6a64c0f6c6748b4d3150c1af/batched_gemm-3d40263-3e19f0a/";
  tree.Write(bmm + "Bmm_E2m1_sm100f.cubin", CubinHeader(100));
  tree.Write(bmm + "Bmm_Bfloat16.cubin", CubinHeader(103));  // no arch in the name: its header says
  tree.Write(bmm + "include/flashinferMetaInfo.h", "// not a binary");
  const ArtifactIndex index = IndexArtifacts({tree.root().string()});
  ASSERT_EQ(index.groups.size(), 2u);
  const ArtifactGroup& g = index.groups[0];
  EXPECT_EQ(g.name, "TRTLLM_GEN_BMM");
  EXPECT_EQ(g.arches, (std::set<std::string>{"sm_100f", "sm_103"}));
  EXPECT_EQ(g.from, gate::ArchesFrom::kCubinHeaders);
  EXPECT_EQ(g.binary_count, 2u);
  EXPECT_EQ(g.headers_read, 1u);
  ASSERT_EQ(index.loaders.size(), 2u);
  EXPECT_EQ(index.loaders_by_name.count("gen_bmm_module"), 1u);
  const gate::PrebuiltArtifacts p = ToPrebuilt(g, "gen_bmm_module", *arch::ParseArch("sm_120"));
  EXPECT_EQ(p.runs_on_target, Tri::kFalse);
  EXPECT_EQ(ToPrebuilt(g, "gen_bmm_module", *arch::ParseArch("sm_103")).runs_on_target, Tri::kTrue);
  // Nothing installed for DSL_FMHA: its declared list stands.
  EXPECT_EQ(index.groups[1].from, gate::ArchesFrom::kDeclaredList);
}

TEST(IndexArtifacts, ChecksumsNameTheCubinsOfAGroupNotYetFetched) {
  TempTree tree;
  tree.Write("flashinfer/artifacts.py", kArtifacts);
  tree.Write("flashinfer/jit/bmm.py", kGenerator);
  tree.Write("cache/cubins/5988e15c0e6d006c6a64c0f6c6748b4d3150c1af/batched_gemm-3d40263-3e19f0a/checksums.txt",
             "aa11 Bmm_E2m1_sm100f.cubin\nbb22 Bmm_Fp8_sm103a.cubin\ncc33 include/flashinferMetaInfo.h\n");
  const ArtifactIndex index = IndexArtifacts({tree.root().string()});
  ASSERT_FALSE(index.groups.empty());
  EXPECT_EQ(index.groups[0].arches, (std::set<std::string>{"sm_100f", "sm_103a"}));
  EXPECT_EQ(index.groups[0].from, gate::ArchesFrom::kFileNames);
  EXPECT_EQ(index.groups[0].binary_count, 0u);
}

TEST(IndexArtifacts, NoDeclaringClassNoIndex) {
  TempTree tree;
  tree.Write("pkg/mod.py", "def f():\n    return ArtifactPath_like = 1\n");
  EXPECT_TRUE(IndexArtifacts({tree.root().string()}).empty());
}

}  // namespace
}  // namespace archpatch::scan
