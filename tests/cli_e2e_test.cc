#include "e2e.h"

namespace archpatch::e2e {
namespace {

TEST(Cli, UnknownCommandSuggestsTheClosestAndExitsTwo) {
  RunResult r = RunArchpatch({"aduit"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "archpatch: error: unknown command 'aduit', did you mean 'audit'?\n");
  EXPECT_EQ(r.out, "");
}

TEST(Cli, ArchesListsTheTableWithMacros) {
  RunResult r = RunArchpatch({"arches"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("sm_120a   __CUDA_ARCH__=1200 __CUDA_ARCH_LIST__=1200 "
                       "__CUDA_ARCH_FAMILY_SPECIFIC__=1200 __CUDA_ARCH_SPECIFIC__=1200 "
                       "__CUDA_ARCH_FEAT_SM120_ALL\n"),
            std::string::npos)
      << r.out;
}

TEST(Cli, UnknownOptionIsAUsageError) {
  RunResult r = RunArchpatch({"arches", "--jsno"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("archpatch: error: arches: unrecognised option '--jsno'"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace archpatch::e2e
