#include "suggest/owner.h"

#include <gtest/gtest.h>

#include "env/test_tree.h"

namespace archpatch::suggest {
namespace {

using env::testing::TempTree;

TEST(OwnerOf, FindsTheDistributionWhoseRecordListsTheFile) {
  TempTree t;
  t.Write("demo-1.0.dist-info/METADATA", "Name: demo\nVersion: 1.0\n");
  t.Write("demo-1.0.dist-info/RECORD", "demo/k.cuh,,\n");
  t.Write("other-2.0.dist-info/METADATA", "Name: other\nVersion: 2.0\n");
  t.Write("other-2.0.dist-info/RECORD", "other/a.py,,\n");
  const auto file = t.Write("demo/k.cuh", "x\n");
  Result<env::Environment> env = env::LoadSitePackages(t.root());
  ASSERT_TRUE(env);
  const Owned owned = OwnerOf(*env, file);
  ASSERT_NE(owned.distribution, nullptr);
  EXPECT_EQ(owned.distribution->normalized_name, "demo");
  EXPECT_EQ(owned.relative, "demo/k.cuh");
  EXPECT_EQ(owned.how, "RECORD");
}

TEST(OwnerOf, WithoutRecordFallsBackOnTopLevelThenOnTheName) {
  TempTree t;
  t.Write("flashinfer_python-0.6.16.dist-info/METADATA", "Name: flashinfer-python\nVersion: 0.6.16\n");
  t.Write("nvidia_cutlass_dsl-4.3.0.dist-info/METADATA", "Name: nvidia-cutlass-dsl\nVersion: 4.3.0\n");
  t.Write("nvidia_cutlass_dsl-4.3.0.dist-info/top_level.txt", "cutlass\n");
  const auto fi = t.Write("flashinfer/jit/comm.py", "x = 1\n");
  const auto dsl = t.Write("cutlass/cute/mma.py", "x = 1\n");
  const auto stray = t.Write("stray/a.py", "x = 1\n");
  Result<env::Environment> env = env::LoadSitePackages(t.root());
  ASSERT_TRUE(env);
  const Owned by_name = OwnerOf(*env, fi);
  ASSERT_NE(by_name.distribution, nullptr);
  EXPECT_EQ(by_name.distribution->normalized_name, "flashinfer-python");
  EXPECT_EQ(by_name.how, "name");
  const Owned by_top_level = OwnerOf(*env, dsl);
  ASSERT_NE(by_top_level.distribution, nullptr);
  EXPECT_EQ(by_top_level.distribution->normalized_name, "nvidia-cutlass-dsl");
  EXPECT_EQ(by_top_level.how, "top_level.txt");
  EXPECT_EQ(OwnerOf(*env, stray).distribution, nullptr);
}

}  // namespace
}  // namespace archpatch::suggest
