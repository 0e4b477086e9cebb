// The hazard checks over tests/fixtures/hazard/tree, whose files carry their expectations inline:
//   // expect: empty-kernel sm_120              on a kernel's line
//   // expect: widen-unsafe sm_120 FEATURE      on a gate's line (also widen-safe, unknown)
// Every finding must be expected and every expectation found.
#include "hazard/check.h"
#include "hazard/empty_kernel.h"
#include "report/finding.h"

#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace archpatch::hazard {
namespace {

namespace fs = std::filesystem;

const fs::path kTree = fs::path(ARCHPATCH_SOURCE_DIR) / "tests/fixtures/hazard/tree";

std::string Read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

const FeatureTable& Table() {
  static const FeatureTable t = *LoadFeatures(std::string(ARCHPATCH_SOURCE_DIR) + "/rules/features.yaml");
  return t;
}

// line -> "empty-kernel" | "widen-unsafe wgmma" | "widen-safe" | "unknown", for one target.
std::map<int, std::string> Expectations(const std::string& contents, const std::string& target) {
  std::map<int, std::string> out;
  std::istringstream in(contents);
  std::string line;
  const std::regex expect(R"(// expect: ([a-z-]+) (sm_\w+)(?: (\S+))?)");
  for (int n = 1; std::getline(in, line); ++n) {
    std::smatch m;
    if (!std::regex_search(line, m, expect) || m[2] != target) continue;
    out[n] = m[1].str() + (m[3].matched ? " " + m[3].str() : "");
  }
  return out;
}

std::map<int, std::string> Actual(const FileHazards& h) {
  std::map<int, std::string> out;
  for (const Finding& f : h.empty_kernels) out[f.line] = "empty-kernel";
  for (const GateHazard& g : h.gates) {
    std::string s(SafetyName(g.widen.safety));
    if (g.widen.safety == Safety::kUnsafe) s += " " + g.widen.missing.front().feature->id;
    out[g.line] = s;
  }
  return out;
}

class FixtureTest : public ::testing::TestWithParam<std::string> {};

TEST_P(FixtureTest, FindingsMatchTheInlineExpectations) {
  const fs::path path = kTree / GetParam();
  const std::string contents = Read(path);
  CheckOptions o;
  o.target = *arch::ParseArch("sm_120");
  o.features = &Table();
  o.env.undef_unknown = true;
  Result<FileHazards> h = CheckFile(GetParam(), contents, o);
  ASSERT_TRUE(h.ok()) << h.error().str();
  EXPECT_EQ(Actual(*h), Expectations(contents, "sm_120"));
}

INSTANTIATE_TEST_SUITE_P(Tree, FixtureTest,
                         ::testing::Values("pkg/include/allreduce_fusion.cuh", "pkg/include/hopper_gemm.cuh",
                                           "pkg/include/blackwell_mma.cuh", "pkg/include/pdl.cuh",
                                           "pkg/include/unknown.cuh", "pkg/csrc/allreduce_fusion.cu",
                                           "pkg/csrc/multinode.cu"),
                         [](const auto& info) {
                           std::string n = fs::path(info.param).filename().string();
                           for (char& c : n)
                             if (!isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

FileHazards CheckText(const std::string& text, const char* target = "sm_120") {
  CheckOptions o;
  o.target = *arch::ParseArch(target);
  o.features = &Table();
  o.env.undef_unknown = true;
  Result<FileHazards> h = CheckFile("t.cu", text, o);
  EXPECT_TRUE(h.ok());
  return h.ok() ? *h : FileHazards{};
}

TEST(EmptyKernel, TheFindingSaysWhereTheKernelHasARealBody) {
  FileHazards h = CheckText(Read(kTree / "pkg/include/allreduce_fusion.cuh"));
  ASSERT_EQ(h.empty_kernels.size(), 1u);
  const Finding& f = h.empty_kernels[0];
  EXPECT_EQ(gate::KindName(f.kind), "empty-kernel");
  EXPECT_EQ(f.severity, Severity::kError);
  EXPECT_EQ(f.text, "allreduce_fusion_kernel");
  EXPECT_EQ(f.VerdictFor("sm_120"), Tri::kFalse);
  EXPECT_EQ(f.VerdictFor("sm_121"), Tri::kFalse);
  EXPECT_EQ(f.VerdictFor("sm_90"), Tri::kTrue);
  EXPECT_EQ(f.VerdictFor("sm_100a"), Tri::kTrue);
  EXPECT_EQ(f.VerdictFor("sm_80"), Tri::kFalse);
  EXPECT_EQ(f.summary,
            "On sm_120 this kernel compiles to an empty body: it would run and return garbage without an error");
  EXPECT_EQ(ToJson(f)["gates"][0]["widen"]["widen"], "widen-safe");
}

TEST(EmptyKernel, DeclarationsAndReturnsAloneStillCountAsEmpty) {
  FileHazards h = CheckText(R"(
__global__ void k(float* out) {
  int i = threadIdx.x;
  if (i > 1000) return;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && __CUDA_ARCH__ < 1200
  out[i] = 1.f;
#endif
  return;
}
)");
  // `if (...) return;` is real code (a branch), so this kernel is not empty; without it, it is.
  EXPECT_TRUE(h.empty_kernels.empty());
  h = CheckText(R"(
__global__ void k(float* out) {
  int i = threadIdx.x;
  float scale = 2.f;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && __CUDA_ARCH__ < 1200
  out[i] = scale;
#endif
  return;
}
)");
  ASSERT_EQ(h.empty_kernels.size(), 1u);
  EXPECT_EQ(h.empty_kernels[0].line, 2);
}

TEST(EmptyKernel, AnElseBranchWithCodeIsNotEmpty) {
  FileHazards h = CheckText(R"(
__global__ void k(float* out) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && __CUDA_ARCH__ < 1200
  out[0] = 1.f;
#else
  __trap();
#endif
}
)");
  EXPECT_TRUE(h.empty_kernels.empty());
}

// Each arch's parse reads the file with the bodies of its other functions blanked, their
// directive lines kept: a helper's chains and #defines still reach the kernel.
TEST(EmptyKernel, HelpersWithDirectivesBesideTheKernelLeaveItsVerdicts) {
  FileHazards h = CheckText(R"(
__device__ void helper(float* out) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  out[1] = 2.f;
#define STORE_FIRST(o) o[0] = 1.f
#else
#define STORE_FIRST(o)
#endif
}
__global__ void k(float* out) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && __CUDA_ARCH__ < 1200
  STORE_FIRST(out);
  helper(out);
#endif
}
)");
  ASSERT_EQ(h.empty_kernels.size(), 1u);
  const Finding& f = h.empty_kernels[0];
  EXPECT_EQ(f.text, "k");
  EXPECT_EQ(f.VerdictFor("sm_120"), Tri::kFalse);
  EXPECT_EQ(f.VerdictFor("sm_90"), Tri::kTrue);
  EXPECT_EQ(f.VerdictFor("sm_100a"), Tri::kTrue);
}

TEST(EmptyKernel, TheHostParseReadsOnlyTheBodiesThatHoldABranch) {
  const std::string text =
      "__device__ float helper(float x) { return x * 2.f; }\n"
      "__global__ void plain(float* out) { out[0] = helper(1.f); }\n"
      "__global__ void gated(float* out) {\n"
      "  auto store = [&](float v) { out[0] = v; };\n"
      "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900\n"
      "  store(1.f);\n"
      "#endif\n"
      "}\n";
  const std::string host = HostParseBytes(text, LexSource(text));
  ASSERT_EQ(host.size(), text.size());
  EXPECT_EQ(host.find("return x * 2.f;"), std::string::npos);
  EXPECT_EQ(host.find("out[0] = helper"), std::string::npos);
  EXPECT_NE(host.find("__global__ void plain(float* out) {"), std::string::npos);
  // The gated kernel stays whole, the lambda inside it too.
  const size_t gated = text.find("__global__ void gated");
  EXPECT_EQ(host.substr(gated), text.substr(gated));
}

// CUTLASS's sm90 kernels gate their whole body on the feature macro and call into collective
// headers for the wgmma: the block alone looks clean, and is not known to be safe.
TEST(Classify, AChainOnAnArchSpecificFeatureMacroIsNotKnownToBeSafe) {
  FileHazards h = CheckText(R"(
__device__ void run(int* x) {
#if !defined(__CUDA_ARCH_FEAT_SM90_ALL)
  printf("ERROR : needs sm90a. Aborting.\n");
#else
  x[0] = 1;  // seen whole, nothing arch-specific
#endif
}
)");
  ASSERT_EQ(h.gates.size(), 1u);  // the #else: the #if's error branch is what sm_120 takes
  EXPECT_EQ(h.gates[0].directive, "else");
  EXPECT_EQ(h.gates[0].widen.safety, Safety::kUnknown);
  EXPECT_EQ(h.gates[0].widen.specific_macro, "__CUDA_ARCH_FEAT_SM90_ALL");
  EXPECT_EQ(WidenSentence(h.gates[0].widen, *arch::ParseArch("sm_120")),
            "Widening this gate to sm_120 is not known to be safe: the condition tests '__CUDA_ARCH_FEAT_SM90_ALL', "
            "which nvcc defines only for an arch-specific target; the code behind it is written for that chip's own "
            "instructions, often in headers this block only calls into.");
  h = CheckText(
      "__device__ void f(int* x) {\n#if __CUDA_ARCH__ >= 900 && __CUDA_ARCH__ < 1200\n  x[0] = 1;\n#endif\n}\n");
  ASSERT_EQ(h.gates.size(), 1u);
  EXPECT_EQ(h.gates[0].widen.safety, Safety::kSafe);
}

TEST(Classify, PlainTargetIsToldTheArchSpecificVariantWouldDo) {
  FileHazards h = CheckText(R"(
__device__ void f(unsigned* d, unsigned a) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 1000 && __CUDA_ARCH__ < 1200
  asm volatile("mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.f32.e4m3.e4m3.f32.ue8m0 {%0}, {%1};" : "=r"(d[0]) : "r"(a));
#endif
}
)");
  ASSERT_EQ(h.gates.size(), 1u);
  EXPECT_EQ(h.gates[0].widen.safety, Safety::kUnsafe);
  EXPECT_TRUE(h.gates[0].widen.target_variant_hint);
  EXPECT_EQ(WidenSentence(h.gates[0].widen, *arch::ParseArch("sm_120")),
            "Widening this gate to sm_120 is unsafe: the block uses mma.block_scale "
            "('mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.f32.e4m3.e4m3.f32.ue8m0', "
            "block-scaled FP4/FP6/FP8 tensor-core MMA of consumer Blackwell (RTX 50xx, RTX PRO 6000, DGX Spark)), "
            "which exists only on sm_120a, sm_120f, sm_121a, sm_121f; it would work if the code is compiled for "
            "sm_120a instead of sm_120.");
  h = CheckText(R"(
__device__ void f(unsigned* d, unsigned a) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 1000 && __CUDA_ARCH__ < 1200
  asm volatile("mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.f32.e4m3.e4m3.f32.ue8m0 {%0}, {%1};" : "=r"(d[0]) : "r"(a));
#endif
}
)",
                "sm_120a");
  ASSERT_EQ(h.gates.size(), 1u);
  EXPECT_EQ(h.gates[0].widen.safety, Safety::kSafe);
}

TEST(Classify, CommentsAndStringsOutsideAsmDoNotCount) {
  FileHazards h = CheckText(R"(
__device__ void f(float* x) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && __CUDA_ARCH__ < 1200
  // the SM90 path used wgmma.mma_async here once
  /* tcgen05.mma */
  x[0] = 1.f;
#endif
}
)");
  ASSERT_EQ(h.gates.size(), 1u);
  EXPECT_EQ(h.gates[0].widen.safety, Safety::kSafe);
  EXPECT_TRUE(h.gates[0].widen.uses.empty());
}

TEST(Classify, InstructionsInAHelperOfTheSameFileAreFollowed) {
  FileHazards h = CheckText(R"(
__device__ inline void issue(unsigned t) { asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.b64 [%0];" :: "r"(t)); }
#define ISSUE_TWICE(t) do { issue(t); issue(t); } while (0)
__device__ void f(unsigned t) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 1000 && __CUDA_ARCH__ < 1200
  ISSUE_TWICE(t);
#endif
}
)");
  ASSERT_EQ(h.gates.size(), 1u);
  ASSERT_EQ(h.gates[0].widen.safety, Safety::kUnsafe);
  EXPECT_EQ(h.gates[0].widen.missing[0].feature->id, "tcgen05");
  EXPECT_EQ(h.gates[0].widen.missing[0].via, "issue");
}

// A file of hundreds of gates offers their classification to idle threads (CheckOptions::loops,
// the audit's round): the hazards are those of the calling thread alone, gate for gate, in order.
TEST(Classify, GatesSharedWithIdleThreadsClassifyAsOnOneThread) {
  std::string text =
      "__device__ inline void commit(unsigned t) { asm volatile(\"tcgen05.commit.b64 [%0];\" :: \"r\"(t)); }\n";
  for (int i = 0; i < 300; ++i) {
    const char* body = i % 3 == 0   ? "  commit(t);\n"
                       : i % 3 == 1 ? "  asm volatile(\"wgmma.fence.sync.aligned;\");\n"
                                    : "  x += 1;\n";
    text +=
        "__device__ void f" + std::to_string(i) +
        "(unsigned t, int x) {\n#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= " + std::to_string(i % 2 ? 900 : 1000) +
        " && __CUDA_ARCH__ < 1200\n" + body + "#endif\n}\n";
  }
  const FileHazards alone = CheckText(text);
  ASSERT_EQ(alone.gates.size(), 300u);
  SharedLoops loops;
  std::atomic<bool> done{false};
  std::vector<std::thread> helpers;
  for (int t = 0; t < 3; ++t) helpers.emplace_back([&] { loops.HelpWhile([&] { return !done.load(); }); });
  CheckOptions o;
  o.target = *arch::ParseArch("sm_120");
  o.features = &Table();
  o.env.undef_unknown = true;
  o.loops = &loops;
  Result<FileHazards> shared = CheckFile("t.cu", text, o);
  done = true;
  loops.Wake();
  for (std::thread& t : helpers) t.join();
  ASSERT_TRUE(shared.ok());
  ASSERT_EQ(shared->gates.size(), alone.gates.size());
  for (size_t i = 0; i < alone.gates.size(); ++i) {
    const GateHazard &a = alone.gates[i], &b = shared->gates[i];
    EXPECT_EQ(b.line, a.line);
    EXPECT_EQ(b.widen.safety, a.widen.safety) << "gate at line " << a.line;
    ASSERT_EQ(b.widen.missing.size(), a.widen.missing.size()) << "gate at line " << a.line;
    for (size_t m = 0; m < a.widen.missing.size(); ++m) {
      EXPECT_EQ(b.widen.missing[m].feature->id, a.widen.missing[m].feature->id);
      EXPECT_EQ(b.widen.missing[m].via, a.widen.missing[m].via);
    }
  }
}

TEST(Annotate, CudaGateFindingsGetTheWidenVerdictBySpan) {
  const std::string text = Read(kTree / "pkg/include/blackwell_mma.cuh");
  FileHazards h = CheckText(text);
  ASSERT_EQ(h.gates.size(), 1u);
  Finding gate;
  gate.kind = archpatch::gate::Kind::kCudaGate;
  gate.span = h.gates[0].condition_span;
  std::vector<Finding> findings = {gate};
  AnnotateGateFindings(findings, h, *arch::ParseArch("sm_120"));
  EXPECT_EQ(ToJson(findings[0])["widen"], "widen-unsafe");
  EXPECT_EQ(ToJson(findings[0])["needs"][0]["feature"], "tcgen05");
  EXPECT_EQ(ToJson(findings[0])["needs"][0]["arches"][0], "sm_100a");
  EXPECT_FALSE(ExplainLines(findings[0]).empty());
}

}  // namespace
}  // namespace archpatch::hazard
