#include "hazard/proof.h"

#include <gtest/gtest.h>

#include "hazard/blast_radius.h"

namespace archpatch::hazard {
namespace {

arch::Arch A(const char* name) { return *arch::ParseArch(name); }

const std::string kBefore = R"(#include <cuda_runtime.h>
__global__ void k(float* out) {
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 900) && (__CUDA_ARCH__ < 1200)
  out[0] = 1.f;
#else
  out[0] = 0.f;
#endif
}
)";
const std::string kCondition = "defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 900) && (__CUDA_ARCH__ < 1200)";

// kBefore with the condition replaced by `condition`, and the span replaced.
std::pair<std::string, ByteSpan> Rewrite(const std::string& condition) {
  const size_t at = kBefore.find(kCondition);
  std::string after = kBefore;
  after.replace(at, kCondition.size(), condition);
  return {after, {at, at + kCondition.size()}};
}

ProofOptions Options(ProofEngine engine) {
  ProofOptions o;
  o.engine = engine;
  o.arches = {A("sm_75"), A("sm_89"), A("sm_90"), A("sm_90a"), A("sm_100a"), A("sm_120"), A("sm_120a"), A("sm_121")};
  return o;
}

class ProofTest : public ::testing::TestWithParam<ProofEngine> {
 protected:
  void SetUp() override {
    if (GetParam() == ProofEngine::kNvcc && FindNvcc().empty()) {
      GTEST_SKIP() << "nvcc not found (set ARCHPATCH_NVCC): the nvcc proof is not tested here";
    }
  }
  FileProof Prove(const std::string& condition) {
    auto [after, span] = Rewrite(condition);
    Result<FileProof> p = ProveEdit("k.cu", kBefore, after, {span}, {A("sm_120")}, Options(GetParam()));
    EXPECT_TRUE(p.ok());
    return p.ok() ? *p : FileProof{};
  }
};

TEST_P(ProofTest, DroppingTheUpperBoundIsProvenAndReachesSm121Too) {
  FileProof p = Prove("defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 900)");
  EXPECT_TRUE(p.ok) << ::testing::PrintToString(p.problems);
  EXPECT_EQ(p.changed, (std::vector<std::string>{"sm_120", "sm_120a", "sm_121"}));
  EXPECT_EQ(p.predicted, p.changed);
  EXPECT_EQ(p.reached, (std::vector<std::string>{"sm_120"}));
}

TEST_P(ProofTest, OrInTheTargetChangesOnlyTheTarget) {
  FileProof p = Prove(kCondition + " || (__CUDA_ARCH__ == 1200)");
  EXPECT_TRUE(p.ok) << ::testing::PrintToString(p.problems);
  EXPECT_EQ(p.changed, (std::vector<std::string>{"sm_120", "sm_120a"}));
}

TEST_P(ProofTest, ARewriteThatAlsoTurnsOnSm75Fails) {
  FileProof p = Prove("defined(__CUDA_ARCH__)");
  EXPECT_FALSE(p.ok);
  ASSERT_FALSE(p.problems.empty());
  EXPECT_EQ(p.problems[0],
            "the edit also changes the code compiled for sm_75, which is older than the target: it must not");
}

TEST_P(ProofTest, ARewriteThatDoesNotTurnOnTheTargetFails) {
  FileProof p = Prove("defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 900) && (__CUDA_ARCH__ <= 1199)");
  EXPECT_FALSE(p.ok);
  EXPECT_EQ(p.problems, (std::vector<std::string>{"sm_120: the guarded block is still not compiled after the edit"}));
}

INSTANTIATE_TEST_SUITE_P(Engines, ProofTest, ::testing::Values(ProofEngine::kLibclang, ProofEngine::kNvcc),
                         [](const auto& info) { return info.param == ProofEngine::kNvcc ? "nvcc" : "libclang"; });

TEST(BlastRadius, DroppingTheBoundTurnsOnEveryLaterArch) {
  Result<std::vector<VerdictChange>> r =
      BlastRadius("__CUDA_ARCH__ >= 900 && __CUDA_ARCH__ < 1200", "__CUDA_ARCH__ >= 900", {});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(ArchNames(*r), (std::vector<std::string>{"sm_120", "sm_120a", "sm_120f", "sm_121", "sm_121a", "sm_121f"}));
  EXPECT_EQ((*r)[0].before, Tri::kFalse);
  EXPECT_EQ((*r)[0].after, Tri::kTrue);
}

TEST(BlastRadius, OrInTheExactTargetChangesOnlyIt) {
  Result<std::vector<VerdictChange>> r =
      BlastRadius("__CUDA_ARCH__ >= 900 && __CUDA_ARCH__ < 1200",
                  "__CUDA_ARCH__ >= 900 && __CUDA_ARCH__ < 1200 || __CUDA_ARCH__ == 1200", {});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(ArchNames(*r), (std::vector<std::string>{"sm_120", "sm_120a", "sm_120f"}));
}

TEST(BlastRadius, AnUnknownMacroStaysUnknown) {
  Result<std::vector<VerdictChange>> r = BlastRadius("ENABLE_FP8 && __CUDA_ARCH__ < 1200", "ENABLE_FP8", {});
  ASSERT_TRUE(r.ok());
  ASSERT_FALSE(r->empty());
  EXPECT_EQ(r->front().arch, "sm_120");
  EXPECT_EQ(r->front().before, Tri::kFalse);
  EXPECT_EQ(r->front().after, Tri::kUnknown);
}

TEST(BlastRadius, FileLevelFollowsTheElseBranchToo) {
  auto [after, span] = Rewrite("defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 900)");
  std::vector<VerdictChange> r =
      FileBlastRadius("k.cu", kBefore, after, {}, {A("sm_90"), A("sm_120"), A("sm_121a")}, span.begin, span.end);
  EXPECT_EQ(ArchNames(r), (std::vector<std::string>{"sm_120", "sm_121a"}));
}

TEST(BlastRadius, AMalformedConditionIsAnErrorThatNamesIt) {
  Result<std::vector<VerdictChange>> r = BlastRadius("__CUDA_ARCH__ >=", "1", {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("'__CUDA_ARCH__ >='"), std::string::npos);
}

}  // namespace
}  // namespace archpatch::hazard
