#include "hazard/audit_hook.h"
#include "report/finding.h"
#include "scan/groups.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <unistd.h>

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

// nvrtc_cutlass.cuh's shape: a file #defines a macro under a Hopper-only condition (inside its
// own `#ifndef` guard) and uses it itself, and another file uses it too, so the macro is also the
// package's. Widening the
// definition must reach the file's own `#if` on it, as the gates were evaluated (the file's own
// definition read as it says), not stay pinned to the package's per-arch value of it.
TEST(HazardPass, WideningADefinitionReachesItsUsersInTheFileWhenTheMacroIsThePackages) {
  setenv("ARCHPATCH_DATA_DIR", ARCHPATCH_SOURCE_DIR, 1);
  const std::filesystem::path root =
      std::filesystem::temp_directory_path() / ("archpatch_hazard_own_" + std::to_string(::getpid()));
  std::filesystem::create_directories(root / "pkg");
  std::ofstream(root / "pkg/reconfig.cuh") << "#ifndef PKG_RECONFIG\n"
                                              "#if defined(__CUDA_ARCH_FEAT_SM90_ALL)\n"
                                              "#define PKG_RECONFIG 1\n"
                                              "#endif\n"
                                              "#endif\n"
                                              "__device__ void alloc() {\n"
                                              "#if PKG_RECONFIG\n"
                                              "  asm volatile(\"setmaxnreg.inc.sync.aligned.u32 240;\\n\");\n"
                                              "#endif\n"
                                              "}\n";
  std::ofstream(root / "pkg/user.cu") << "#include \"reconfig.cuh\"\n"
                                         "__global__ void k() {\n#if PKG_RECONFIG\n  alloc();\n#endif\n}\n";
  scan::AuditOptions options;
  options.target = *arch::ParseArch("sm_120");
  options.paths = {(root / "pkg").string()};
  options.jobs = 2;
  options.after_cuda_file = HazardPass(options);
  Result<scan::AuditReport> report = scan::Audit(options);
  std::filesystem::remove_all(root);
  ASSERT_TRUE(report.ok()) << report.error().str();
  ASSERT_TRUE(report->package_macros.count("PKG_RECONFIG"));
  const Finding* definition = nullptr;
  for (const Finding& f : report->findings) {
    if (f.file.ends_with("reconfig.cuh") && f.line == 2) definition = &f;
  }
  ASSERT_NE(definition, nullptr);
  ASSERT_TRUE(definition->widen.has_value());  // the definition itself was checked (it was not)
  std::vector<gate::Group> groups = scan::BuildGroups(report->findings, options.paths);
  const auto cause = std::find_if(groups.begin(), groups.end(), [&](const gate::Group& g) {
    return report->findings[g.root].file.ends_with("reconfig.cuh") && report->findings[g.root].line == 2;
  });
  ASSERT_NE(cause, groups.end());
  // Was "which the target lacks"; setmaxnreg is in sm_120a, so the build that would run it is named.
  EXPECT_EQ(cause->reason, "needs setmaxnreg, which sm_120 lacks (sm_120a has it)");
  EXPECT_EQ(cause->available_on_variant, "sm_120a");
  EXPECT_EQ(cause->widen, gate::WidenSafety::kUnsafe);
}

}  // namespace
}  // namespace archpatch::hazard
