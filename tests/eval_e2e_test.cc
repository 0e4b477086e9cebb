// archpatch eval end to end: what a user sees for good and malformed expressions.
#include <nlohmann/json.hpp>

#include "e2e.h"

namespace archpatch::e2e {
namespace {

TEST(EvalE2E, PrintsOneLinePerExpressionWithTheVerdictPerArch) {
  RunResult r = RunArchpatch(
      {"eval", "--arch", "sm_90a,sm_120", "defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 1200", "defined(ENABLE_FP8)"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 1200: sm_90a=true sm_120=false\n"
            "defined(ENABLE_FP8): sm_90a=unknown sm_120=unknown\n");
  EXPECT_EQ(r.err, "");
}

TEST(EvalE2E, JsonLinesAndMacroFlags) {
  RunResult r = RunArchpatch({"eval", "--json", "--arch", "sm_120,sm_121a", "-D", "ENABLE_FP8", "-UENABLE_BF16",
                              "defined ENABLE_FP8 and not defined ENABLE_BF16",
                              "defined(__CUDA_ARCH_FEAT_SM121_ALL) || UNLISTED"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::istringstream lines(r.out);
  std::string first, second;
  std::getline(lines, first);
  std::getline(lines, second);
  EXPECT_EQ(nlohmann::json::parse(first),
            nlohmann::json::parse(R"({"expr": "defined ENABLE_FP8 and not defined ENABLE_BF16",
                                      "verdict": {"sm_120": "true", "sm_121a": "true"}})"));
  EXPECT_EQ(nlohmann::json::parse(second)["verdict"],
            nlohmann::json::parse(R"({"sm_120": "unknown", "sm_121a": "true"})"));
}

TEST(EvalE2E, UndefUnknownMakesUnlistedMacrosUndefined) {
  RunResult r = RunArchpatch(
      {"eval", "--undef-unknown", "--arch", "sm_120", "UNLISTED || __CUDA_ARCH__ == 1200", "defined(UNLISTED)"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, "UNLISTED || __CUDA_ARCH__ == 1200: sm_120=true\ndefined(UNLISTED): sm_120=false\n");
}

TEST(EvalE2E, MalformedExpressionPointsAtTheColumnAndTheOthersStillPrint) {
  RunResult r = RunArchpatch({"eval", "--arch", "sm_120", "__CUDA_ARCH__ >= 1200", "(__CUDA_ARCH__ >= 900", "1"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "__CUDA_ARCH__ >= 1200: sm_120=true\n1: sm_120=true\n");
  EXPECT_EQ(r.err,
            "archpatch: error: <arg 2>:1:22: missing ')' before the end of the condition\n"
            "  (__CUDA_ARCH__ >= 900\n"
            "                       ^\n");
}

TEST(EvalE2E, ExpressionFileErrorsNameTheFileAndLine) {
  TempDir dir;
  const auto file = dir.path() / "conds.txt";
  WriteFile(file,
            "# gates to check\n#if __CUDA_ARCH__ >= 1000\n\n__CUDA_ARCH__ >= 900 && \\\n  __CUDA_ARCH__ < < 1200\n");
  RunResult r = RunArchpatch({"eval", "--arch", "sm_100a", "--json", "--expr-file", file.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "archpatch: error: " + file.string() +
                       ":5:19: expected an expression before '<'\n"
                       "    __CUDA_ARCH__ < < 1200\n"
                       "                    ^\n");
  std::istringstream lines(r.out);
  std::string first, second;
  std::getline(lines, first);
  std::getline(lines, second);
  EXPECT_EQ(nlohmann::json::parse(first)["verdict"]["sm_100a"], "true");
  EXPECT_EQ(nlohmann::json::parse(second)["error"]["line"], 5);
}

TEST(EvalE2E, AllArchesAndUsageErrors) {
  RunResult r = RunArchpatch({"eval", "--json", "--arch", "all", "__CUDA_ARCH__ >= 1200"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto verdict = nlohmann::json::parse(r.out)["verdict"];
  EXPECT_EQ(verdict.size(), 23u);
  EXPECT_EQ(verdict["sm_75"], "false");
  EXPECT_EQ(verdict["sm_121f"], "true");

  r = RunArchpatch({"eval", "--arch", "sm_999", "1"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("archpatch: error: --arch: unknown arch 'sm_999'"), std::string::npos) << r.err;
  r = RunArchpatch({"eval", "1"});
  EXPECT_EQ(r.exit_code, 2);
  r = RunArchpatch({"eval", "--arch", "sm_120"});
  EXPECT_EQ(r.err, "archpatch: error: eval: no expression given\n");
  r = RunArchpatch({"eval", "--arch", "sm_120", "-D", "1BAD", "1"});
  EXPECT_EQ(r.err, "archpatch: error: -D: '1BAD' is not a macro name\n");
  r = RunArchpatch({"eval", "--arch", "sm_120", "--expr-file", "/nonexistent/conds.txt"});
  EXPECT_EQ(r.exit_code, 2);
}

}  // namespace
}  // namespace archpatch::e2e
