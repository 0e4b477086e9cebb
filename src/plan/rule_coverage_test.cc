// Shipped-rule coverage of audit findings: the example rule of examples/minipkg covers the gate
// it edits and not its sibling (gen_multinode_module keeps its gate).
#include "plan/rule_coverage.h"

#include <gtest/gtest.h>

#include "rules/loader.h"
#include "scan/audit.h"

namespace archpatch::plan {
namespace {

TEST(RuleCoverage, FileGlobsMatchAtPathBoundaries) {
  EXPECT_TRUE(EditFileMatches("flashinfer/jit/comm.py", "flashinfer-head/flashinfer/jit/comm.py"));
  EXPECT_TRUE(EditFileMatches("flashinfer/jit/*.py", "/x/site-packages/flashinfer/jit/comm.py"));
  EXPECT_FALSE(EditFileMatches("flashinfer/jit/comm.py", "xflashinfer/jit/comm.py"));
  EXPECT_FALSE(EditFileMatches("flashinfer/*.py", "flashinfer/jit/comm.py"));
}

// The matcher keeps each answer under its glob and its file both: the same glob answers for
// another file anew, and the same file for another glob.
TEST(RuleCoverage, TheGlobMatcherAnswersEachPairAsEditFileMatches) {
  FileGlobMatcher globs;
  const std::string comm = "flashinfer/jit/comm.py", any = "flashinfer/*.py";
  for (int round = 0; round < 2; ++round) {
    EXPECT_TRUE(globs.Matches(comm, "/x/flashinfer/jit/comm.py"));
    EXPECT_FALSE(globs.Matches(comm, "/x/flashinfer/jit/core.py"));
    EXPECT_FALSE(globs.Matches(any, "/x/flashinfer/jit/comm.py"));
    EXPECT_TRUE(globs.Matches(any, "/x/flashinfer/gemm.py"));
  }
}

TEST(RuleCoverage, TheExampleRuleCoversTheGateItEditsOnly) {
  const std::string root = std::string(ARCHPATCH_SOURCE_DIR) + "/examples/minipkg";
  Result<rules::Rule> rule = rules::LoadRuleFile(root + "/rules/minifi-allreduce.yaml");
  ASSERT_TRUE(rule.ok()) << rule.error().str();
  scan::AuditOptions o;
  o.target = *arch::ParseArch("sm_120");
  o.paths = {root + "/site-packages"};
  o.jobs = 1;
  Result<scan::AuditReport> report = scan::Audit(o);
  ASSERT_TRUE(report.ok());
  std::vector<size_t> all;
  for (size_t i = 0; i < report->findings.size(); ++i) all.push_back(i);
  auto covered = CoveringRules({*rule}, report->findings, all, o.target, /*jobs=*/2);
  bool allreduce = false, multinode = false;
  for (size_t i = 0; i < all.size(); ++i) {
    const Finding& f = report->findings[i];
    const bool by_rule = !covered[i].empty();
    if (f.scope.ends_with("gen_allreduce_module")) allreduce = allreduce || by_rule;
    if (f.scope.ends_with("gen_multinode_module")) multinode = multinode || by_rule;
  }
  EXPECT_TRUE(allreduce);
  EXPECT_FALSE(multinode);
}

}  // namespace
}  // namespace archpatch::plan
