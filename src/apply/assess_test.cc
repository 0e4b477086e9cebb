// AssessPlan over the fixture tree tests/fixtures/hazard/tree, with plans written by hand the way
// the planner would make them: the seed case (Python gate widened, CUDA gate not), the fix for it
// (both widened), and a CUDA edit that opens a tcgen05 block to SM120.
#include "apply/assess.h"

#include "env/digest.h"
#include "report/finding.h"
#include "store/disk.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

namespace archpatch::apply {
namespace {

namespace fs = std::filesystem;

const fs::path kTree = fs::path(ARCHPATCH_SOURCE_DIR) / "tests/fixtures/hazard/tree";

std::string Read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

class AssessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("ARCHPATCH_DATA_DIR", ARCHPATCH_SOURCE_DIR, 1);  // the source tree holds rules/
  }

  // One edit replacing the first `before` in `path` by `after`.
  static plan::FilePlan Edit(const std::string& path, const std::string& before, const std::string& after,
                             const std::string& kind) {
    const std::string text = Read(kTree / path);
    const size_t at = text.find(before);
    EXPECT_NE(at, std::string::npos) << before;
    plan::TextEdit e;
    e.begin = at;
    e.end = at + before.size();
    e.before = before;
    e.after = after;
    e.line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + at, '\n'));
    e.column = static_cast<int>(at - text.rfind('\n', at - 1));
    e.kind = kind;
    plan::FilePlan file{path, env::Sha256Hex(text), "", {e}};
    file.sha256_after = env::Sha256Hex(plan::ApplyEdits(text, file));
    return file;
  }

  // The plan staged on the fixture tree's bytes, as apply stages it.
  static PlanAssessment AssessPlan(const plan::EditPlan& p) {
    store::RealDisk disk;
    Snapshot snapshot(disk);
    return apply::AssessPlan(StagePlan(p, snapshot), snapshot);
  }
  static Result<PlanProof> ProvePlan(const plan::EditPlan& p, const hazard::ProofOptions& o) {
    store::RealDisk disk;
    Snapshot snapshot(disk);
    return apply::ProvePlan(StagePlan(p, snapshot), o);
  }

  static plan::EditPlan Plan(std::vector<plan::FilePlan> files) {
    plan::RulePlan rule;
    rule.rule_id = "test-rule";
    rule.root = kTree.string();
    rule.targets = {"sm_120"};
    rule.files = std::move(files);
    return plan::EditPlan{kTree.string(), {rule}};
  }

  static plan::FilePlan PythonWidened() { return Edit("pkg/jit/comm.py", "[9, 10]", "[9, 10, 12]", "python-gate"); }
  static plan::FilePlan CudaWidened() {
    return Edit("pkg/include/allreduce_fusion.cuh", " && (__CUDA_ARCH__ < 1200)", "", "cuda-gate");
  }
};

TEST_F(AssessTest, WideningOnlyThePythonGateLeavesAnEmptyKernelReachableAndRefuses) {
  PlanAssessment a = AssessPlan(Plan({PythonWidened()}));
  ASSERT_EQ(a.findings.size(), 1u);
  const Finding& f = a.findings[0];
  EXPECT_EQ(gate::KindName(f.kind), "empty-kernel");
  EXPECT_EQ(f.file, "pkg/include/allreduce_fusion.cuh");
  EXPECT_EQ(f.text, "allreduce_fusion_kernel");
  EXPECT_EQ(ToJson(f)["reached_through"], "pkg/jit/comm.py");
  EXPECT_TRUE(a.Refuses());
  std::vector<std::string> lines = DescribeAssessment(a);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines[0],
            "pkg/include/allreduce_fusion.cuh:11:17: error: kernel 'allreduce_fusion_kernel' is reached "
            "through pkg/jit/comm.py:");
}

TEST_F(AssessTest, OnlyTheWidenedBuildersSourcesCount) {
  // comm.py also builds multinode.cu, whose kernel is empty on SM120 too; its gate stays [10].
  PlanAssessment a = AssessPlan(Plan({PythonWidened()}));
  for (const Finding& f : a.findings) EXPECT_NE(f.file, "pkg/csrc/multinode.cu");
  a = AssessPlan(Plan(
      {Edit("pkg/jit/comm.py", "supported_major_versions=[10]", "supported_major_versions=[10, 12]", "python-gate")}));
  ASSERT_EQ(a.findings.size(), 1u);
  EXPECT_EQ(a.findings[0].file, "pkg/csrc/multinode.cu");
  EXPECT_EQ(a.findings[0].text, "multinode_allreduce_kernel");
}

TEST_F(AssessTest, WideningBothGatesIsSafeAndShowsTheBlastRadius) {
  PlanAssessment a = AssessPlan(Plan({CudaWidened(), PythonWidened()}));
  EXPECT_TRUE(a.findings.empty()) << ToJson(a).dump(2);
  EXPECT_FALSE(a.Refuses());
  ASSERT_EQ(a.edits.size(), 1u);
  EXPECT_EQ(a.edits[0].widen, "widen-safe");
  EXPECT_EQ(a.edits[0].radius,
            (std::vector<std::string>{"sm_120", "sm_120a", "sm_120f", "sm_121", "sm_121a", "sm_121f"}));
  EXPECT_EQ(DescribeAssessment(a)[0],
            "pkg/include/allreduce_fusion.cuh:12: blast radius: sm_120, sm_120a, sm_120f, sm_121, sm_121a, sm_121f "
            "(arches whose compiled code this edit changes)");
}

TEST_F(AssessTest, OpeningATcgen05BlockToSm120IsRefused) {
  PlanAssessment a =
      AssessPlan(Plan({Edit("pkg/include/blackwell_mma.cuh", " && (__CUDA_ARCH__ < 1200)", "", "cuda-gate")}));
  ASSERT_EQ(a.findings.size(), 1u);
  EXPECT_EQ(gate::KindName(a.findings[0].kind), "widen-unsafe");
  EXPECT_EQ(a.findings[0].severity, Severity::kError);
  EXPECT_EQ(ToJson(a.findings[0])["needs"][0]["feature"], "tcgen05");
  EXPECT_TRUE(a.Refuses());
  EXPECT_EQ(ToJson(a)["edits"][0]["widen"], "widen-unsafe");
}

TEST_F(AssessTest, AnUnknownBlockWarnsButDoesNotRefuse) {
  PlanAssessment a = AssessPlan(Plan({Edit("pkg/include/unknown.cuh", " && (__CUDA_ARCH__ < 1200)", "", "cuda-gate")}));
  ASSERT_EQ(a.findings.size(), 1u);
  EXPECT_EQ(gate::KindName(a.findings[0].kind), "widen-unknown");
  EXPECT_EQ(a.findings[0].severity, Severity::kWarning);
  EXPECT_FALSE(a.Refuses());
}

TEST_F(AssessTest, TheRecordedBlastRadiusIsNullForPythonAndListsArchesForCuda) {
  const plan::EditPlan p = Plan({CudaWidened(), PythonWidened()});
  PlanAssessment a = AssessPlan(p);
  nlohmann::json j = a.RadiusOf(p.rules[0], p.rules[0].files[0]);
  EXPECT_EQ(j["arches"].size(), 6u);
  EXPECT_EQ(j["edits"][0]["line"], 12);
  EXPECT_TRUE(a.RadiusOf(p.rules[0], p.rules[0].files[1]).is_null());
}

}  // namespace
}  // namespace archpatch::apply

namespace archpatch::apply {
namespace {

hazard::ProofOptions FewArches() {
  hazard::ProofOptions o;
  o.engine = hazard::ProofEngine::kLibclang;
  o.arches.clear();
  for (const char* a : {"sm_75", "sm_90", "sm_100a", "sm_120", "sm_121"}) o.arches.push_back(*arch::ParseArch(a));
  return o;
}

TEST_F(AssessTest, ThePlanProofPassesForTheRightRewriteAndSkipsPython) {
  Result<PlanProof> p = ProvePlan(Plan({CudaWidened(), PythonWidened()}), FewArches());
  ASSERT_TRUE(p.ok()) << p.error().str();
  EXPECT_TRUE(p->ok()) << ToJson(*p).dump(2);
  ASSERT_EQ(p->files.size(), 1u);
  EXPECT_EQ(p->files[0].changed, (std::vector<std::string>{"sm_120", "sm_121"}));
  EXPECT_EQ(p->skipped.size(), 1u);
  EXPECT_EQ(DescribeProof(*p)[0],
            "proof: pkg/include/allreduce_fusion.cuh: proven with libclang: the edit turns the block on for sm_120, "
            "and changes the compiled code of sm_120, sm_121 only (as predicted)");
}

TEST_F(AssessTest, ThePlanProofFailsForARewriteThatTurnsOnOlderArches) {
  plan::FilePlan wrong = Edit("pkg/include/allreduce_fusion.cuh",
                              "(defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 900) && (__CUDA_ARCH__ < 1200))",
                              "(defined(__CUDA_ARCH__))", "cuda-gate");
  Result<PlanProof> p = ProvePlan(Plan({wrong}), FewArches());
  ASSERT_TRUE(p.ok());
  EXPECT_FALSE(p->ok());
  std::vector<std::string> lines = DescribeProof(*p);
  ASSERT_GE(lines.size(), 2u);
  EXPECT_EQ(lines[0], "proof: pkg/include/allreduce_fusion.cuh: FAILED with libclang:");
  EXPECT_EQ(lines[1],
            "  the edit also changes the code compiled for sm_75, which is older than the target: it must not");
}

}  // namespace
}  // namespace archpatch::apply
