// `archpatch audit` for people and tools on the bundled example (examples/minipkg): root-cause
// groups in the human report and in --json, and --sarif validated as SARIF 2.1.0.
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "e2e.h"

namespace archpatch::e2e {
namespace {

const std::string kExample = "examples/minipkg/site-packages";

TEST(AuditGroups, HumanReportListsOneLinePerRootCauseAndWhatToRunNext) {
  RunResult r = RunArchpatch({"audit", "--arch", "sm_120", kExample});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("refusal"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("minifi/jit/comm.py"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("module gen_allreduce_module"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("root causes keep sm_120 out"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("next: "), std::string::npos) << r.out;
}

TEST(AuditGroups, JsonGroupsNameRootClassPlacesAndWiden) {
  RunResult r = RunArchpatch({"audit", "--arch", "sm_120", "--json", kExample});
  ASSERT_EQ(r.exit_code, 1) << r.err;
  nlohmann::json doc = nlohmann::json::parse(r.out);
  ASSERT_TRUE(doc["groups"].is_array());
  ASSERT_FALSE(doc["groups"].empty());
  for (const auto& g : doc["groups"]) {
    EXPECT_TRUE(g["id"].is_string());
    EXPECT_TRUE(g["root"]["file"].is_string());
    EXPECT_GE(g["root"]["line"].get<int>(), 1);
    EXPECT_TRUE(g["class"].is_string());
    EXPECT_TRUE(g["places"].is_array());
    EXPECT_TRUE(g["widen"]["verdict"].is_string());
    EXPECT_TRUE(g["covered_by"].is_array());
  }
  for (const auto& f : doc["findings"]) EXPECT_TRUE(f.contains("class")) << f.dump();
}

// A shipped rule covers the root causes it edits, in a module (located once the package model
// has settled the modules' findings, on a worker of the scan) as in a header (located in the
// report's end), whatever the number of workers.
TEST(AuditGroups, ShippedRulesCoverTheRootsTheyEditInModulesAndHeadersAlike) {
  const std::string tree = "rules/tests/flashinfer-trtllm-allreduce-sm12x/before";
  for (const char* jobs : {"1", "4"}) {
    RunResult r = RunArchpatch({"audit", "--arch", "sm_120", "--json", "-j", jobs, tree});
    ASSERT_EQ(r.exit_code, 1) << r.err;
    const nlohmann::json doc = nlohmann::json::parse(r.out);
    std::map<std::string, std::vector<std::string>> covered;  // "file:line" of each root -> rule ids
    for (const auto& g : doc["groups"]) {
      const std::string file = g["root"]["file"];
      covered[file.substr(file.find("flashinfer/")) + ":" + std::to_string(g["root"]["line"].get<int>())] =
          g["covered_by"].get<std::vector<std::string>>();
    }
    EXPECT_EQ(covered["flashinfer/jit/comm.py:29"], std::vector<std::string>{"flashinfer-trtllm-allreduce-sm12x"})
        << jobs;
    EXPECT_EQ(covered["flashinfer/jit/comm.py:10"], std::vector<std::string>{}) << jobs;
    EXPECT_EQ(
        covered["flashinfer/data/include/flashinfer/comm/trtllm_allreduce.cuh:33"],
        (std::vector<std::string>{"flashinfer-trtllm-allreduce-sm12x", "flashinfer-trtllm-allreduce-sm12x-legacy"}))
        << jobs;
  }
}

TEST(AuditGroups, SarifIsValid210) {
  TempDir dir;
  RunResult r = RunArchpatch({"audit", "--arch", "sm_120", "--sarif", kExample});
  ASSERT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
  const auto file = dir.path() / "audit.sarif";
  WriteFile(file, r.out);
  std::string cmd = "python3 " + ShellQuote(std::string(ARCHPATCH_SOURCE_DIR) + "/tests/sarif/validate.py") + " " +
                    ShellQuote(file.string()) + " >/dev/null";
  int status = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  if (WEXITSTATUS(status) == 77) GTEST_SKIP() << "python3-jsonschema is not installed";
  EXPECT_EQ(WEXITSTATUS(status), 0) << r.out;
  nlohmann::json doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(
      doc["runs"][0]["results"].size(),
      nlohmann::json::parse(RunArchpatch({"audit", "--arch", "sm_120", "--json", kExample}).out)["groups"].size());
}

TEST(AuditGroups, JsonAndSarifTogetherAreRefused) {
  RunResult r = RunArchpatch({"audit", "--arch", "sm_120", "--json", "--sarif", kExample});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("archpatch: error:"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace archpatch::e2e
