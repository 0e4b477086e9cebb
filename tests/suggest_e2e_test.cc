// archpatch suggest as a user runs it (docs/suggest.md): on a small package of our own, shaped
// like examples/minipkg (a JIT builder's keyword list, a kernel whose whole body sits under an
// arch gate, a tcgen05 block) beside a FlashInfer look-alike with a gate on the known-unsafe list.
// What suggest writes must pass `archpatch rules test` and `archpatch apply --dry-run --verify`
// as it is; every other root cause is refused with its reason, and nothing is overwritten.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "e2e.h"

namespace archpatch::e2e {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Widen-safe: plain arithmetic under a gate that stops at 1200 (sm_120 gets an empty kernel).
const char* kNorm = R"(#pragma once
#include <cuda_runtime.h>

namespace demokern {

// One row per block; the sum of squares goes through shared memory.
template <typename T>
__global__ void rmsnorm_kernel(T const* in, T* out, int n, float eps) {
  __shared__ float partial[256];
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 900) && (__CUDA_ARCH__ < 1200)
  float sum = 0.f;
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    float v = static_cast<float>(in[blockIdx.x * n + i]);
    sum += v * v;
  }
  partial[threadIdx.x] = sum;
  __syncthreads();
  float scale = rsqrtf(partial[0] / n + eps);
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    out[blockIdx.x * n + i] = static_cast<T>(static_cast<float>(in[blockIdx.x * n + i]) * scale);
  }
#endif
}

}  // namespace demokern
)";

// Hardware-exclusive: tensor memory exists on datacenter Blackwell only.
const char* kUmma = R"(#pragma once
#include <cuda_runtime.h>

__global__ void umma_alloc_kernel(unsigned* slot) {
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 1000) && (__CUDA_ARCH__ < 1200)
  asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 32;" ::"r"(slot[0]));
#endif
}
)";

// FlashInfer's ue8m0 conversion (ln_silu_headers.cuh): an instruction plain sm_120 lacks and
// sm_120a has, so the remedy is the build's target.
const char* kFp4 = R"(#pragma once

__device__ unsigned short to_e8m0(float x) {
  unsigned short out = 0;
#if defined(__CUDA_ARCH__) && (defined(__CUDA_ARCH_FEAT_SM100_ALL) || defined(__CUDA_ARCH_FEAT_SM120_ALL))
  asm volatile("cvt.rp.satfinite.ue8m0x2.f32 %0, 0.0, %1;" : "=h"(out) : "f"(x));
#endif
  return out;
}
)";

// A path written for arch-specific builds (FlashInfer's arch_condition.h, CUTLASS's
// helper_macros.hpp): sm_120a takes it, plain sm_120 the generic #else.
const char* kFastExp = R"(#pragma once

__device__ float fast_exp(float x) {
#if defined(__CUDA_ARCH_SPECIFIC__)
  return __expf(x);
#else
  return expf(x);
#endif
}
)";

// A JIT builder's major list: the hazard check has nothing to say about a Python gate.
const char* kBuild = R"(from .core import gen_jit_spec, get_nvcc_flags


def gen_rmsnorm_module():
    nvcc_flags = get_nvcc_flags(
        supported_major_versions=[9, 10]
    )
    return gen_jit_spec("rmsnorm", ["norm.cu"], extra_cuda_cflags=nvcc_flags)
)";

// On rules/known-unsafe.yaml (the trtllm-gen fused MoE's sm100f cubins).
const char* kFusedMoe = R"(from .core import JitSpec, current_compilation_context, gen_jit_spec


def gen_trtllm_gen_fused_moe_sm100_module() -> JitSpec:
    nvcc_flags = current_compilation_context.get_nvcc_flags_list(
        supported_major_versions=[10]
    )
    return gen_jit_spec("fused_moe_trtllm_sm100", [], extra_cuda_cflags=nvcc_flags)
)";

// A fast path: sm_120 runs the generic #else, only slower.
const char* kGemv = R"(#pragma once

template <typename T>
__device__ void gemv_tile(T const* a, T* out, int n) {
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 900) && (__CUDA_ARCH__ < 1200)
  for (int i = threadIdx.x; i < n; i += 2 * blockDim.x) out[i] = a[i] + a[i + blockDim.x];
#else
  for (int i = threadIdx.x; i < n; i += blockDim.x) out[i] = a[i];
#endif
}
)";

// A legacy path (only sm_7x takes it) before a new one in the same kernel: widening the first
// would run both on sm_120, and an edit of the second selects the first too.
const char* kScan = R"(#pragma once

__global__ void scan_kernel(float* x) {
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ < 800)
  x[0] = 0.f;
#endif
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 900) && (__CUDA_ARCH__ < 1200)
  x[0] = 1.f;
#endif
}
)";

constexpr const char* kRuleId = "demo-kernels-sm_120-suggested";

fs::path MakeSite(const TempDir& dir) {
  const fs::path site = dir.path() / "site";
  const fs::path info = site / "demo_kernels-0.2.0.dist-info";
  WriteFile(info / "METADATA", "Metadata-Version: 2.1\nName: demo-kernels\nVersion: 0.2.0\n");
  WriteFile(info / "INSTALLER", "pip\n");
  WriteFile(info / "RECORD",
            "demokern/__init__.py,,\ndemokern/jit/__init__.py,,\ndemokern/jit/build.py,,\n"
            "demokern/data/include/demokern/norm.cuh,,\ndemokern/data/include/demokern/umma.cuh,,\n"
            "demokern/data/include/demokern/gemv.cuh,,\ndemokern/data/include/demokern/scan.cuh,,\n"
            "demokern/data/include/demokern/fp4.cuh,,\ndemokern/data/include/demokern/fastexp.cuh,,\n"
            "demo_kernels-0.2.0.dist-info/RECORD,,\n");
  WriteFile(site / "demokern" / "__init__.py", "");
  WriteFile(site / "demokern" / "jit" / "__init__.py", "");
  WriteFile(site / "demokern" / "jit" / "build.py", kBuild);
  WriteFile(site / "demokern" / "data" / "include" / "demokern" / "norm.cuh", kNorm);
  WriteFile(site / "demokern" / "data" / "include" / "demokern" / "umma.cuh", kUmma);
  WriteFile(site / "demokern" / "data" / "include" / "demokern" / "gemv.cuh", kGemv);
  WriteFile(site / "demokern" / "data" / "include" / "demokern" / "scan.cuh", kScan);
  WriteFile(site / "demokern" / "data" / "include" / "demokern" / "fp4.cuh", kFp4);
  WriteFile(site / "demokern" / "data" / "include" / "demokern" / "fastexp.cuh", kFastExp);
  WriteFile(site / "flashinfer_python-0.6.6.dist-info" / "METADATA",
            "Metadata-Version: 2.1\nName: flashinfer-python\nVersion: 0.6.6\n");
  WriteFile(site / "flashinfer" / "__init__.py", "");
  WriteFile(site / "flashinfer" / "jit" / "__init__.py", "");
  WriteFile(site / "flashinfer" / "jit" / "fused_moe.py", kFusedMoe);
  return site;
}

// The id `archpatch audit` gives the root cause in `file` (a suffix of its path).
std::string GroupOf(const fs::path& site, const std::string& file) {
  RunResult audit = RunArchpatch({"audit", "--arch", "sm_120", "--site-packages", site.string(), "--json"});
  const json doc = json::parse(audit.out);
  for (const json& g : doc["groups"]) {
    if (g["root"]["file"].get<std::string>().ends_with(file)) return g["id"];
  }
  ADD_FAILURE() << "no root cause in " << file;
  return "";
}

RunResult Suggest(const fs::path& site, const fs::path& out, std::vector<std::string> extra = {}) {
  std::vector<std::string> args{"suggest", "--arch", "sm_120", "--site-packages", site.string(), "--out", out.string()};
  args.insert(args.end(), extra.begin(), extra.end());
  return RunArchpatch(args);
}

TEST(SuggestE2E, WritesARuleThatPassesRulesTestAndApplyVerify) {
  TempDir dir;
  const fs::path site = MakeSite(dir), out = dir.path() / "out";
  const std::string norm_cuh = ReadFile(site / "demokern/data/include/demokern/norm.cuh");
  RunResult r = Suggest(site, out);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find(std::string("wrote ") + (out / kRuleId).string() + ".yaml: 1 edit"), std::string::npos) << r.out;
  const std::string rule = ReadFile(out / (std::string(kRuleId) + ".yaml"));
  EXPECT_NE(rule.find("distribution: demo-kernels\n"), std::string::npos) << rule;
  EXPECT_NE(rule.find("versions: \"==0.2.0\""), std::string::npos) << rule;
  EXPECT_NE(rule.find("scope: rmsnorm_kernel"), std::string::npos) << rule;
  EXPECT_NE(rule.find("strategy: drop-bound"), std::string::npos) << rule;
  EXPECT_NE(rule.find("expect: 1"), std::string::npos) << rule;
  EXPECT_EQ(rule.find("umma.cuh"), std::string::npos) << "the tcgen05 gate must not be widened:\n" << rule;
  const fs::path before = out / "tests" / kRuleId / "before" / "demokern/data/include/demokern/norm.cuh";
  const std::string slice = ReadFile(before);
  EXPECT_NE(slice.find("rmsnorm_kernel"), std::string::npos) << slice;
  EXPECT_LT(slice.size(), norm_cuh.size() / 2) << "the fixture holds the lines around the gate only:\n" << slice;
  EXPECT_TRUE(fs::exists(out / "tests" / kRuleId / "before" / "demo_kernels-0.2.0.dist-info" / "METADATA"));

  RunResult test = RunArchpatch({"rules", "test", "--dir", out.string()});
  EXPECT_EQ(test.exit_code, 0) << test.out << test.err;
  EXPECT_NE(test.out.find(std::string("PASS ") + kRuleId), std::string::npos) << test.out;

  RunResult apply = RunArchpatch({"apply", "--rule", (out / (std::string(kRuleId) + ".yaml")).string(),
                                  "--site-packages", site.string(), "--dry-run", "--verify"},
                                 "HOME=" + ShellQuote(dir.path().string()) + " ");
  EXPECT_EQ(apply.exit_code, 0) << apply.out << apply.err;
  EXPECT_NE(apply.out.find("+#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 900)\n"), std::string::npos) << apply.out;
  EXPECT_EQ(ReadFile(site / "demokern/data/include/demokern/norm.cuh"), norm_cuh) << "a dry run writes nothing";
}

TEST(SuggestE2E, RefusesUnsafeUnknownAndKnownUnsafeRootCausesOneLineEach) {
  TempDir dir;
  const fs::path site = MakeSite(dir), out = dir.path() / "out";
  RunResult r = Suggest(site, out);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const std::string umma = GroupOf(site, "umma.cuh"), build = GroupOf(site, "build.py"),
                    moe = GroupOf(site, "fused_moe.py");
  EXPECT_NE(r.out.find("refused " + umma + " demokern/data/include/demokern/umma.cuh:5:5 "), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("hardware-exclusive: sm_120 lacks tcgen05"), std::string::npos) << r.out;
  const size_t tcgen05 = r.out.find("lacks tcgen05");
  EXPECT_EQ(r.out.substr(tcgen05, r.out.find('\n', tcgen05) - tcgen05).find("sm_120a"), std::string::npos)
      << "sm_120a lacks tcgen05 too: " << r.out;
  const std::string fp4 = GroupOf(site, "fp4.cuh");
  const size_t line = r.out.find("refused " + fp4 + " demokern/data/include/demokern/fp4.cuh:");
  ASSERT_NE(line, std::string::npos) << r.out;
  EXPECT_NE(r.out.find("hardware-exclusive: sm_120 lacks cvt.e2m1", line), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("; sm_120a has it: build for sm_120a, not sm_120\n", line), std::string::npos) << r.out;
  const std::string fast = GroupOf(site, "fastexp.cuh");
  const size_t exp_line = r.out.find("refused " + fast + " demokern/data/include/demokern/fastexp.cuh:");
  ASSERT_NE(exp_line, std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("built for sm_120a the target takes this path: build for sm_120a rather than widen", exp_line),
            r.out.find("': ", exp_line) + 3)
      << r.out;
  EXPECT_NE(r.out.find("refused " + build + " demokern/jit/build.py:6:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("not known to be safe"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("refused " + moe + " flashinfer/jit/fused_moe.py:6:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("do not widen: FlashInfer's TRT-LLM-gen fused MoE"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(out / "flashinfer-python-sm_120-suggested.yaml"));
}

TEST(SuggestE2E, RefusesFastPathsUnlessAskedAndOlderChipsPathsAndEditsThatReachThem) {
  TempDir dir;
  const fs::path site = MakeSite(dir), out = dir.path() / "out";
  const std::string gemv = GroupOf(site, "gemv.cuh");
  RunResult r = Suggest(site, out);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("refused " + gemv + " demokern/data/include/demokern/gemv.cuh:5:5 "), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("a fast path (sm_120 takes the #else at line 7, a generic path)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("demokern/data/include/demokern/scan.cuh:4:5 'defined(__CUDA_ARCH__) && (__CUDA_ARCH__ < 800)': "
                       "only older chips take this path (the newest is sm_75)"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(ReadFile(out / (std::string(kRuleId) + ".yaml")).find("gemv.cuh"), std::string::npos);

  const fs::path out2 = dir.path() / "out2";
  RunResult fast = Suggest(site, out2, {"--fast-paths"});
  ASSERT_EQ(fast.exit_code, 0) << fast.out << fast.err;
  EXPECT_NE(ReadFile(out2 / (std::string(kRuleId) + ".yaml")).find("scope: gemv_tile"), std::string::npos);
  EXPECT_NE(
      fast.out.find("demokern/data/include/demokern/scan.cuh:7:5 'defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 900) "
                    "&& (__CUDA_ARCH__ < 1200)': its edit would also change line 4"),
      std::string::npos)
      << fast.out;
  RunResult test = RunArchpatch({"rules", "test", "--dir", out2.string()});
  EXPECT_EQ(test.exit_code, 0) << test.out << test.err;
}

TEST(SuggestE2E, ANamedRefusedGroupWritesNothingAndExits3) {
  TempDir dir;
  const fs::path site = MakeSite(dir), out = dir.path() / "out";
  const std::string umma = GroupOf(site, "umma.cuh");
  ASSERT_FALSE(umma.empty());
  RunResult r = Suggest(site, out, {umma});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.out.find("refused " + umma + " "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("0 rules drafted for sm_120 from 1 root cause, 1 refused"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(out));
}

TEST(SuggestE2E, AnUnknownGroupIsAUsageError) {
  TempDir dir;
  const fs::path site = MakeSite(dir), out = dir.path() / "out";
  RunResult r = Suggest(site, out, {"G99"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("archpatch: error: suggest: no root cause 'G99'"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
}

TEST(SuggestE2E, NothingKeepsTheArchOutExits1) {
  TempDir dir;
  const fs::path site = dir.path() / "site", out = dir.path() / "out";
  WriteFile(site / "plain-1.0.dist-info" / "METADATA", "Metadata-Version: 2.1\nName: plain\nVersion: 1.0\n");
  WriteFile(site / "plain" / "__init__.py", "x = 1\n");
  RunResult r = Suggest(site, out);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_FALSE(fs::exists(out));
}

TEST(SuggestE2E, RerunLeavesIdenticalFilesAndRefusesToOverwriteAChangedOne) {
  TempDir dir;
  const fs::path site = MakeSite(dir), out = dir.path() / "out";
  ASSERT_EQ(Suggest(site, out).exit_code, 0);
  const fs::path rule = out / (std::string(kRuleId) + ".yaml");
  RunResult again = Suggest(site, out);
  EXPECT_EQ(again.exit_code, 0) << again.out << again.err;
  EXPECT_NE(again.out.find("unchanged " + rule.string()), std::string::npos) << again.out;

  const std::string edited = ReadFile(rule) + "# my own note\n";
  WriteFile(rule, edited);
  const fs::path after = out / "tests" / kRuleId / "after" / "demokern/data/include/demokern/norm.cuh";
  fs::remove(after);
  RunResult refused = Suggest(site, out);
  EXPECT_EQ(refused.exit_code, 3) << refused.out << refused.err;
  EXPECT_NE(refused.err.find("archpatch: error: refusing to overwrite: " + rule.string() + " exists and differs"),
            std::string::npos)
      << refused.err;
  EXPECT_EQ(ReadFile(rule), edited);
  EXPECT_FALSE(fs::exists(after)) << "nothing is written when one file conflicts";
}

TEST(SuggestE2E, AllowUnknownDraftsThePythonGateToo) {
  TempDir dir;
  const fs::path site = MakeSite(dir), out = dir.path() / "out";
  RunResult r = Suggest(site, out, {"--allow-unknown", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const json doc = json::parse(r.out);
  ASSERT_EQ(doc["rules"].size(), 1u) << r.out;
  EXPECT_EQ(doc["rules"][0]["id"], kRuleId);
  EXPECT_EQ(doc["rules"][0]["edits"], 2);
  EXPECT_EQ(doc["rules"][0]["version"], "0.2.0");
  for (const json& refusal : doc["refused"]) {
    EXPECT_EQ(refusal["where"].get<std::string>().find("build.py"), std::string::npos) << refusal;
  }
  const std::string rule = ReadFile(out / (std::string(kRuleId) + ".yaml"));
  EXPECT_NE(rule.find("scope: gen_rmsnorm_module\n      name: supported_major_versions\n      add: major"),
            std::string::npos)
      << rule;
  EXPECT_NE(rule.find("NOT CHECKED"), std::string::npos) << rule;
  RunResult test = RunArchpatch({"rules", "test", "--dir", out.string()});
  EXPECT_EQ(test.exit_code, 0) << test.out << test.err;
  RunResult apply = RunArchpatch({"apply", "--rule", (out / (std::string(kRuleId) + ".yaml")).string(),
                                  "--site-packages", site.string(), "--dry-run"},
                                 "HOME=" + ShellQuote(dir.path().string()) + " ");
  EXPECT_EQ(apply.exit_code, 0) << apply.out << apply.err;
  EXPECT_NE(apply.out.find("+        supported_major_versions=[9, 10, 12]"), std::string::npos) << apply.out;
}

}  // namespace
}  // namespace archpatch::e2e
