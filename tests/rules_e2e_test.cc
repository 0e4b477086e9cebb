// `archpatch rules list|show|check|test` as an author uses them, on the test-only rule in
// tests/fixtures/rules (minipkg-sm12x: one python-gate, one cuda-gate, one replace).
#include <algorithm>

#include <nlohmann/json.hpp>

#include "e2e.h"

namespace archpatch::e2e {
namespace {

namespace fs = std::filesystem;

const std::string kRulesDir = std::string(ARCHPATCH_SOURCE_DIR) + "/tests/fixtures/rules";
const std::string kRulesEnv = "ARCHPATCH_RULES_DIR=" + ShellQuote(kRulesDir) + " ";

TEST(RulesE2e, TestPassesOnTheFixture) {
  RunResult r = RunArchpatch({"rules", "test", "--dir", "tests/fixtures/rules"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out, "PASS minipkg-sm12x\n1 passed, 0 failed\n");
}

TEST(RulesE2e, TestShowsADiffWhenAfterDiffers) {
  TempDir dir;
  fs::copy(kRulesDir, dir.path(), fs::copy_options::recursive);
  const fs::path backend = dir.path() / "tests/minipkg-sm12x/after/minipkg/backend.py";
  std::string text = ReadFile(backend);
  text.replace(text.find("(9, 10, 12)"), 11, "(9, 10, 12, 13)");
  WriteFile(backend, text);
  RunResult r = RunArchpatch({"rules", "test", "--dir", dir.path().string(), "minipkg-sm12x"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out,
            "FAIL minipkg-sm12x: minipkg/backend.py differs\n"
            "--- a/minipkg/backend.py\n+++ b/minipkg/backend.py\n@@ -1,6 +1,6 @@\n"
            " class Dispatcher:\n     def pick(self, major):\n-        if major in (9, 10, 12, 13):\n"
            "+        if major in (9, 10, 12):\n             return \"fused\"\n         return \"fallback\"\n \n"
            "0 passed, 1 failed\n");
}

TEST(RulesE2e, TestFailsWhenTheRuleNoLongerMatches) {
  TempDir dir;
  fs::copy(kRulesDir, dir.path(), fs::copy_options::recursive);
  const fs::path rule = dir.path() / "minipkg-sm12x.yaml";
  std::string text = ReadFile(rule);
  text.replace(text.find("expect: 2"), 9, "expect: 3");
  WriteFile(rule, text);
  RunResult r = RunArchpatch({"rules", "test", "--dir", dir.path().string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("FAIL minipkg-sm12x: planning against before/ failed: rule 'minipkg-sm12x' edit 2 "
                       "(minipkg/data/include/**/*.cuh): expected 3 cuda-gate on '__CUDA_ARCH__' in "
                       "'fused_reduce_kernel', found 2"),
            std::string::npos)
      << r.out;
}

TEST(RulesE2e, CheckReportsSchemaErrorsWithAPlace) {
  TempDir dir;
  const fs::path bad = dir.path() / "bad-rule.yaml";
  WriteFile(bad,
            "id: bad-rule\nsummary: x\ndistribution: x\ntargets: [sm_120]\nedits:\n"
            "  - file: x.py\n    cuda-gate: {macro: __CUDA_ARCH__, strategy: widen}\n");
  RunResult r = RunArchpatch({"rules", "check", bad.string(), kRulesDir + "/minipkg-sm12x.yaml"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "archpatch: error: " + bad.string() +
                       ":7:49: unknown strategy 'widen' (one of: drop-bound, raise-bound, or-target)\n");
  EXPECT_EQ(r.out, "ok " + kRulesDir + "/minipkg-sm12x.yaml\n");
}

TEST(RulesE2e, ShowPrintsEditsAndNotes) {
  RunResult r = RunArchpatch({"rules", "show", "minipkg-sm12x"}, kRulesEnv);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("minipkg-sm12x: Enable minipkg's fused reduce kernel on SM120/SM121 (test fixture)\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("  distribution: minipkg >=0.2,<0.5\n  targets: sm_120, sm_121\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("    2. cuda-gate minipkg/data/include/**/*.cuh (macro __CUDA_ARCH__, scope "
                       "fused_reduce_kernel, drop-bound), expect 2\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("notes:\nminipkg builds its fused reduce module"), std::string::npos) << r.out;
}

TEST(RulesE2e, ShowSuggestsAnIdAndListGivesJson) {
  RunResult r = RunArchpatch({"rules", "show", "minipkg-sm21x"}, kRulesEnv);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "archpatch: error: no rule 'minipkg-sm21x', did you mean 'minipkg-sm12x'?\n");
  r = RunArchpatch({"rules", "list", "--json"}, kRulesEnv);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json list = nlohmann::json::parse(r.out);
  ASSERT_TRUE(list.is_array());
  // $ARCHPATCH_RULES_DIR comes first; the shipped rules follow, all sorted by id.
  auto rule =
      std::find_if(list.begin(), list.end(), [](const nlohmann::json& r) { return r["id"] == "minipkg-sm12x"; });
  ASSERT_NE(rule, list.end()) << r.out;
  EXPECT_EQ((*rule)["distribution"], "minipkg");
  EXPECT_EQ((*rule)["targets"], nlohmann::json({"sm_120", "sm_121"}));
  EXPECT_EQ((*rule)["edits"].size(), 3u);
  EXPECT_EQ((*rule)["path"], kRulesDir + "/minipkg-sm12x.yaml");
}

TEST(RulesE2e, UnknownSubcommandIsAUsageError) {
  RunResult r = RunArchpatch({"rules", "lsit"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("rules: unknown or malformed subcommand 'lsit'"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace archpatch::e2e
