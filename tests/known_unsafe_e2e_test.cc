// The known-unsafe list (rules/known-unsafe.yaml) as users meet it: audit says "do not widen"
// above the gates of each entry (human; --json and --sarif mark each), and apply refuses a rule that widens such a gate
// (exit 3, file untouched, no option overrides it). The tree is our own, shaped like FlashInfer
// 0.6.6's trtllm-gen fused-MoE gates, which a user widened on SM120 and then hit "Error occurred
// when running GEMM" from the sm100f cubins.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "e2e.h"

namespace archpatch::e2e {
namespace {

namespace fs = std::filesystem;

const char* kFusedMoe = R"(from .core import JitSpec, current_compilation_context, gen_jit_spec


def gen_cutlass_fused_moe_sm103_module() -> JitSpec:
    nvcc_flags = current_compilation_context.get_nvcc_flags_list(
        supported_major_versions=[10]
    )
    return gen_jit_spec("fused_moe_103", [], extra_cuda_cflags=nvcc_flags)


def gen_trtllm_gen_fused_moe_sm100_module() -> JitSpec:
    # the batched GEMMs come from the cubin cache (sm100f)
    nvcc_flags = current_compilation_context.get_nvcc_flags_list(
        supported_major_versions=[10]
    )
    return gen_jit_spec("fused_moe_trtllm_sm100", [], extra_cuda_cflags=nvcc_flags)
)";

const char* kLauncher = R"(#include <cuda_runtime.h>

void init_common(int device) {
  int major = 0;
  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
  TVM_FFI_ICHECK_EQ(major, 10) << "MoE kernel requires SM 10.x";
}
)";

// A site-packages folder with flashinfer-python 0.6.6 and the two files above.
fs::path MakeSite(const TempDir& dir) {
  const fs::path site = dir.path() / "site";
  WriteFile(site / "flashinfer_python-0.6.6.dist-info" / "METADATA",
            "Metadata-Version: 2.1\nName: flashinfer-python\nVersion: 0.6.6\n");
  WriteFile(site / "flashinfer" / "__init__.py", "");
  WriteFile(site / "flashinfer" / "jit" / "__init__.py", "");
  WriteFile(site / "flashinfer" / "jit" / "fused_moe.py", kFusedMoe);
  WriteFile(site / "flashinfer" / "data" / "csrc" / "trtllm_fused_moe_kernel_launcher.cu", kLauncher);
  return site;
}

fs::path WriteRule(const TempDir& dir, const std::string& id, const std::string& edits) {
  const fs::path rule = dir.path() / (id + ".yaml");
  WriteFile(rule,
            "id: " + id + "\nsummary: test\ndistribution: flashinfer-python\ntargets: [sm_120]\nedits:\n" + edits);
  return rule;
}

const std::string kWidenTrtllmBuilder =
    "  - file: flashinfer/jit/fused_moe.py\n    python-gate:\n      scope: gen_trtllm_gen_fused_moe_sm100_module\n"
    "      name: supported_major_versions\n";

// Both gates of the entry (the builder's and the launcher's check) under one "do not widen" line
// that says why once; the SM103 CUTLASS builder, not on the list, stays a root cause to act on.
TEST(KnownUnsafe, AuditSaysDoNotWidenOnceAboveTheGatesItCovers) {
  TempDir dir;
  const fs::path site = MakeSite(dir);
  RunResult r = RunArchpatch({"audit", "--arch", "sm_120", site.string()});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const std::string heading =
      "\n  do not widen (2 root causes, 2 places in 2 files): FlashInfer's TRT-LLM-gen fused MoE";
  const size_t line = r.out.find(heading);
  ASSERT_NE(line, std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("do not widen", line + heading.size()), std::string::npos) << "said once: " << r.out;
  const size_t end = r.out.find('\n', line + 1);
  EXPECT_NE(r.out.find("because its GEMMs are precompiled TRT-LLM-gen batched-GEMM cubins built for sm100f", line),
            std::string::npos)
      << r.out;
  EXPECT_LT(r.out.find("[known-unsafe flashinfer-trtllm-gen-fused-moe]\n", line), end + 1) << r.out;
  for (const char* gate : {"module gen_trtllm_gen_fused_moe_sm100_module", "TVM_FFI_ICHECK_EQ(major, 10)"}) {
    const size_t at = r.out.find(gate);
    ASSERT_NE(at, std::string::npos) << r.out;
    EXPECT_GT(at, end) << gate << " lies under its entry: " << r.out;
    EXPECT_EQ(r.out.compare(r.out.rfind('\n', at) + 1, 14, "    refusal   "), 0) << r.out;
  }
  const size_t other = r.out.find("module gen_cutlass_fused_moe_sm103_module");
  ASSERT_NE(other, std::string::npos) << r.out;
  EXPECT_LT(other, line) << "the root cause a patch can act on comes first: " << r.out;
  EXPECT_EQ(r.out.compare(r.out.rfind('\n', other) + 1, 12, "  refusal   "), 0) << r.out;
  EXPECT_NE(r.out.find("; 0 hardware-exclusive, 2 known unsafe to widen\n"), std::string::npos) << r.out;
}

TEST(KnownUnsafe, JsonAndSarifCarryTheMark) {
  TempDir dir;
  const fs::path site = MakeSite(dir);
  RunResult r = RunArchpatch({"audit", "--arch", "sm_120", "--json", site.string()});
  ASSERT_EQ(r.exit_code, 1) << r.err;
  nlohmann::json doc = nlohmann::json::parse(r.out);
  int marked = 0, unmarked = 0;
  for (const auto& g : doc["groups"]) {
    ASSERT_TRUE(g.contains("known_unsafe")) << g.dump();
    if (g["known_unsafe"].is_null()) {
      ++unmarked;
      continue;
    }
    ++marked;
    EXPECT_EQ(g["known_unsafe"]["id"], "flashinfer-trtllm-gen-fused-moe") << g.dump();
    EXPECT_NE(g["known_unsafe"]["because"].get<std::string>().find("sm100f"), std::string::npos);
    EXPECT_EQ(g["widen"]["verdict"], "widen-unsafe") << g.dump();
  }
  EXPECT_EQ(marked, 2) << r.out;    // the builder and the launcher check
  EXPECT_EQ(unmarked, 1) << r.out;  // gen_cutlass_fused_moe_sm103_module
  RunResult sarif = RunArchpatch({"audit", "--arch", "sm_120", "--sarif", site.string()});
  ASSERT_EQ(sarif.exit_code, 1) << sarif.err;
  EXPECT_NE(sarif.out.find("Do not widen: FlashInfer's TRT-LLM-gen fused MoE"), std::string::npos) << sarif.out;
}

TEST(KnownUnsafe, ApplyRefusesAndChangesNothingWhateverTheOptions) {
  TempDir dir;
  const fs::path site = MakeSite(dir);
  const fs::path rule = WriteRule(dir, "widen-trtllm-moe", kWidenTrtllmBuilder);
  const std::string before = ReadFile(site / "flashinfer" / "jit" / "fused_moe.py");
  for (const std::vector<std::string>& extra : std::vector<std::vector<std::string>>{{}, {"--force"}, {"--dry-run"}}) {
    std::vector<std::string> args = {"apply", "--rule", rule.string(), "--site-packages", site.string()};
    args.insert(args.end(), extra.begin(), extra.end());
    RunResult r = RunArchpatch(args);
    EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
    EXPECT_NE(r.err.find("flashinfer/jit/fused_moe.py:14:34: rule 'widen-trtllm-moe' edit 1 changes "
                         "'supported_major_versions=[10]'"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("do not widen: FlashInfer's TRT-LLM-gen fused MoE"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("Error occurred when running GEMM"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("nothing was changed"), std::string::npos) << r.err;
    EXPECT_EQ(ReadFile(site / "flashinfer" / "jit" / "fused_moe.py"), before);
    EXPECT_FALSE(fs::exists(site / ".archpatch" / "manifest.json"));
  }
}

TEST(KnownUnsafe, ApplyRefusesAReplaceOfTheLauncherCheck) {
  TempDir dir;
  const fs::path site = MakeSite(dir);
  const fs::path rule =
      WriteRule(dir, "widen-launcher",
                "  - file: flashinfer/data/csrc/trtllm_fused_moe_kernel_launcher.cu\n    replace:\n"
                "      old: \"TVM_FFI_ICHECK_EQ(major, 10)\"\n      new: \"TVM_FFI_ICHECK_GE(major, 10)\"\n");
  const std::string before = ReadFile(site / "flashinfer" / "data" / "csrc" / "trtllm_fused_moe_kernel_launcher.cu");
  RunResult r = RunArchpatch({"apply", "--rule", rule.string(), "--site-packages", site.string()});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.err.find("(known-unsafe flashinfer-trtllm-gen-fused-moe)"), std::string::npos) << r.err;
  EXPECT_EQ(ReadFile(site / "flashinfer" / "data" / "csrc" / "trtllm_fused_moe_kernel_launcher.cu"), before);
}

TEST(KnownUnsafe, AGateBesideItIsStillApplied) {
  TempDir dir;
  const fs::path site = MakeSite(dir);
  const fs::path rule =
      WriteRule(dir, "widen-sm103-builder",
                "  - file: flashinfer/jit/fused_moe.py\n    python-gate:\n"
                "      scope: gen_cutlass_fused_moe_sm103_module\n      name: supported_major_versions\n");
  RunResult r = RunArchpatch({"apply", "--rule", rule.string(), "--site-packages", site.string(), "--no-clear-cache"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  const std::string after = ReadFile(site / "flashinfer" / "jit" / "fused_moe.py");
  EXPECT_NE(after.find("supported_major_versions=[10, 12]\n    )\n    return gen_jit_spec(\"fused_moe_103\""),
            std::string::npos)
      << after;
  EXPECT_NE(after.find("supported_major_versions=[10]\n    )\n    return gen_jit_spec(\"fused_moe_trtllm_sm100\""),
            std::string::npos)
      << after;
}

}  // namespace
}  // namespace archpatch::e2e
