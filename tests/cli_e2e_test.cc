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

// -v and -vv go before or after the command, as often as wanted: more logging, the same report.
TEST(Cli, VerbosityMayFollowTheCommand) {
  const RunResult quiet = RunArchpatch({"audit", "--arch", "sm_120", "examples/minipkg"});
  const std::vector<std::vector<std::string>> spellings = {{"-vv"}, {"-v", "-v"}, {"--verbose", "-v"}};
  for (const std::vector<std::string>& flags : spellings) {
    std::vector<std::string> args = {"audit", "--arch", "sm_120", "examples/minipkg"};
    args.insert(args.begin() + 1, flags.begin(), flags.end());
    const RunResult r = RunArchpatch(args);
    EXPECT_EQ(r.exit_code, quiet.exit_code) << flags[0] << ": " << r.err;
    EXPECT_EQ(r.out, quiet.out) << flags[0];
    EXPECT_EQ(r.err.find("cannot be specified more than once"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("debug:"), std::string::npos) << flags[0] << " logs more: " << r.err;
  }
}

}  // namespace
}  // namespace archpatch::e2e
