#include "scan/jit_cache.h"

#include <gtest/gtest.h>

#include "binary/test_cubin.h"
#include "env/test_tree.h"

namespace archpatch::scan {
namespace {

using env::testing::TempTree;

using binary::testing::CubinHeader;

TEST(FindPrebuiltModules, NameSoInAFolderOfItsNameUnderJitCacheOrAot) {
  TempTree tree;
  const std::string cache =
      tree.Write("flashinfer_jit_cache/jit_cache/trtllm_gemm/trtllm_gemm.so", CubinHeader(100)).string();
  const std::string aot = tree.Write("flashinfer/data/aot/norm/norm.so", CubinHeader(90)).string();
  const std::string other = tree.Write("flashinfer_jit_cache/jit_cache/x/y.so", CubinHeader(90)).string();
  const std::string lib = tree.Write("torch/lib/libc10/libc10.so", CubinHeader(90)).string();
  const std::vector<ArtifactGroup> found = FindPrebuiltModules({cache, aot, other, lib});
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].name, "trtllm_gemm");
  EXPECT_EQ(found[0].path, "jit_cache/trtllm_gemm");
  EXPECT_EQ(found[0].arches, (std::set<std::string>{"sm_100"}));
  EXPECT_EQ(found[0].from, gate::ArchesFrom::kCubinHeaders);
  EXPECT_EQ(found[1].name, "norm");
}

TEST(AddPrebuiltModules, LoadersAreTheFunctionsWritingTheName) {
  TempTree tree;
  const std::string so =
      tree.Write("flashinfer_jit_cache/jit_cache/trtllm_gemm/trtllm_gemm.so", CubinHeader(100)).string();
  const std::string py = tree.Write("flashinfer/jit/gemm.py",
                                    "def gen_trtllm_gemm_module():\n    return gen_jit_spec(\"trtllm_gemm\", [])\n\n\n"
                                    "def other():\n    return 'trtllm_gemm_v2'\n")
                             .string();
  ArtifactIndex index;
  AddPrebuiltModules(FindPrebuiltModules({so}), {py}, index);
  ASSERT_EQ(index.loaders.size(), 1u);
  EXPECT_EQ(index.loaders[0].scope, "gen_trtllm_gemm_module");
  EXPECT_EQ(ToPrebuilt(index.groups[0], "gen_trtllm_gemm_module", {12, 0, arch::Variant::kPlain}).runs_on_target,
            Tri::kFalse);
}

}  // namespace
}  // namespace archpatch::scan
