#include "hazard/audit_hook.h"
#include "report/finding.h"

#include <cstdlib>

#include <gtest/gtest.h>

namespace archpatch::hazard {
namespace {

TEST(HazardPass, AddsEmptyKernelsAndWidenVerdictsToTheAuditOfTheFixtureTree) {
  setenv("ARCHPATCH_DATA_DIR", ARCHPATCH_SOURCE_DIR, 1);  // the source tree holds rules/
  scan::AuditOptions options;
  options.target = *arch::ParseArch("sm_120");
  options.env.undef_unknown = true;
  options.paths = {std::string(ARCHPATCH_SOURCE_DIR) + "/tests/fixtures/hazard/tree"};
  options.jobs = 2;
  Result<scan::AuditReport> plain = scan::Audit(options);
  ASSERT_TRUE(plain.ok()) << plain.error().str();
  const size_t gates = plain->findings.size();
  options.after_cuda_file = HazardPass(options);
  Result<scan::AuditReport> report = scan::Audit(options);
  ASSERT_TRUE(report.ok()) << report.error().str();
  int empty = 0, unsafe = 0, safe = 0, unknown = 0;
  for (const Finding& f : report->findings) {
    if (f.kind == gate::Kind::kEmptyKernel) {
      ++empty;
      EXPECT_FALSE(ToJson(f)["explain"].empty());
    }
    const std::string widen = ToJson(f).value("widen", "");
    unsafe += widen == "widen-unsafe";
    safe += widen == "widen-safe";
    unknown += widen == "unknown";
  }
  EXPECT_EQ(empty, 2);  // allreduce_fusion_kernel, multinode_allreduce_kernel
  EXPECT_EQ(report->findings.size(), gates + 2);
  EXPECT_EQ(unsafe, 3);  // two wgmma gates, one tcgen05 gate
  EXPECT_EQ(unknown, 1);
  EXPECT_GE(safe, 5);
}

}  // namespace
}  // namespace archpatch::hazard
