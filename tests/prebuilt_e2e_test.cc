// Precompiled artifacts a module loads (issue 13 item 3, docs/audit.md "Precompiled artifacts"):
// audit links a gate to the cubins its module loads and says, next to the gate, that widening it
// would load code with no image for the target; apply (exit 3 unless --allow-hazard) and suggest
// refuse it, naming the binaries. The site-packages is our own, shaped like FlashInfer 0.6.x with
// the flashinfer-cubin distribution installed beside it: flashinfer/artifacts.py declares the
// cubin-cache folders (ArtifactPath), the module generators in flashinfer/jit/ name them, and
// flashinfer_cubin/cubins/<folder>/ holds the cubins (minimal CUDA ELF headers here).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "binary/test_cubin.h"
#include "e2e.h"

namespace archpatch::e2e {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

const char* kArtifacts = R"(from dataclasses import dataclass


@dataclass(frozen=True)
class ArtifactPath:
    TRTLLM_GEN_BMM: str = "5988e15c0e6d006c6a64c0f6c6748b4d3150c1af/batched_gemm-3d40263-3e19f0a/"
    TRTLLM_GEN_GEMM: str = (
        "10f64528a1172dae8e29601a3b99ab9dc78d37be/gemm-91e0ba0-2710384/"
    )
)";

const char* kGemm = R"(from ..artifacts import ArtifactPath
from .core import current_compilation_context, gen_jit_spec


def gen_trtllm_gen_gemm_module():
    gemm_path = ArtifactPath.TRTLLM_GEN_GEMM
    nvcc_flags = current_compilation_context.get_nvcc_flags_list(
        supported_major_versions=[10]
    )
    return gen_jit_spec(
        "trtllm_gemm",
        ["trtllm_gemm_runner.cu"],
        extra_cuda_cflags=[f'-DTLLM_GEN_GEMM_CUBIN_PATH="{gemm_path}"'] + nvcc_flags,
    )


def gen_cutlass_gemm_sm103_module():
    nvcc_flags = current_compilation_context.get_nvcc_flags_list(
        supported_major_versions=[10]
    )
    return gen_jit_spec("cutlass_gemm_103", [], extra_cuda_cflags=nvcc_flags)
)";

const char* kFusedMoe = R"(from ..artifacts import ArtifactPath
from .core import current_compilation_context, gen_jit_spec


def gen_trtllm_gen_fused_moe_sm100_module():
    bmm_path = ArtifactPath.TRTLLM_GEN_BMM
    nvcc_flags = current_compilation_context.get_nvcc_flags_list(
        supported_major_versions=[10]
    )
    cubin_path = f'-DTLLM_GEN_GEMM_CUBIN_PATH="{bmm_path}"'
    return gen_jit_spec("fused_moe_trtllm_sm100", [], extra_cuda_cflags=nvcc_flags + [cubin_path])
)";

// gemm.py's trtllm backend check (FlashInfer 0.4.0): a predicate call only the package model
// resolves, so a rule can change it with `replace:` alone.
const char* kGemmApi = R"(from .jit.gemm import gen_trtllm_gen_gemm_module


def _match_sm_version(device, versions):
    major, minor = get_compute_capability(device)
    return f"{major}{minor}" in versions


def gemm_fp8(a, backend):
    if backend == "trtllm":
        if not _match_sm_version(a.device, ["100", "103"]):
            raise ValueError("trtllm backend: SM100, SM103 only")
        return gen_trtllm_gen_gemm_module().build_and_load().run(a)
)";

const char* kRunner = R"(#include <cuda_runtime.h>

void check_device(int device) {
  int major = 0;
  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
  TVM_FFI_ICHECK_EQ(major, 10) << "trtllm-gen GEMM requires SM 10.x";
}
)";

const std::string kGemmFolder = "10f64528a1172dae8e29601a3b99ab9dc78d37be/gemm-91e0ba0-2710384";
const std::string kBmmFolder = "5988e15c0e6d006c6a64c0f6c6748b4d3150c1af/batched_gemm-3d40263-3e19f0a";

using binary::testing::CubinHeader;

// site-packages with flashinfer-python and, unless `with_cubins` is false, flashinfer-cubin.
fs::path MakeSite(const TempDir& dir, bool with_cubins = true, const std::string& gemm_cubin = "") {
  const fs::path site = dir.path() / "site";
  WriteFile(site / "flashinfer_python-0.6.16.dist-info" / "METADATA",
            "Metadata-Version: 2.1\nName: flashinfer-python\nVersion: 0.6.16\n");
  WriteFile(site / "flashinfer" / "__init__.py", "");
  WriteFile(site / "flashinfer" / "artifacts.py", kArtifacts);
  WriteFile(site / "flashinfer" / "jit" / "__init__.py", "");
  WriteFile(site / "flashinfer" / "jit" / "gemm.py", kGemm);
  WriteFile(site / "flashinfer" / "jit" / "fused_moe.py", kFusedMoe);
  WriteFile(site / "flashinfer" / "gemm.py", kGemmApi);
  WriteFile(site / "flashinfer" / "data" / "csrc" / "trtllm_gemm_runner.cu", kRunner);
  if (!with_cubins) return site;
  WriteFile(site / "flashinfer_cubin-0.6.16.dist-info" / "METADATA",
            "Metadata-Version: 2.1\nName: flashinfer-cubin\nVersion: 0.6.16\n");
  const fs::path cubins = site / "flashinfer_cubin" / "cubins";
  WriteFile(site / "flashinfer_cubin" / "__init__.py", "CUBIN_DIR = 'cubins'\n");
  WriteFile(cubins / kGemmFolder / "Gemm_Bfloat16_E4m3_t128x8_sm100f.cubin", CubinHeader(100));
  if (!gemm_cubin.empty()) WriteFile(cubins / kGemmFolder / gemm_cubin, CubinHeader(120));
  WriteFile(cubins / kGemmFolder / "checksums.txt", "aa Gemm_Bfloat16_E4m3_t128x8_sm100f.cubin\n");
  WriteFile(cubins / kBmmFolder / "Bmm_E2m1E2m1_Fp32_t128x8x512_sm100f.cubin", CubinHeader(100));
  return site;
}

const json* GroupAt(const json& doc, const std::string& file_tail, int line) {
  for (const json& g : doc["groups"]) {
    if (g["root"]["file"].get<std::string>().ends_with(file_tail) && g["root"]["line"] == line) return &g;
  }
  return nullptr;
}

TEST(Prebuilt, AuditSaysNextToTheGateWhatWideningWouldLoad) {
  TempDir dir;
  const fs::path site = MakeSite(dir);
  RunResult r = RunArchpatch({"audit", "--arch", "sm_120", site.string()});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const size_t gate = r.out.find("module gen_trtllm_gen_gemm_module");
  ASSERT_NE(gate, std::string::npos) << r.out;
  const size_t line_end = r.out.find('\n', gate);
  const size_t next = r.out.find('\n', line_end + 1);
  const std::string said = r.out.substr(line_end + 1, next - line_end - 1);
  EXPECT_TRUE(said.starts_with("      prebuilt: its module loads precompiled code with no image for sm_120")) << r.out;
  EXPECT_NE(said.find("TRTLLM_GEN_GEMM via gen_trtllm_gen_gemm_module (sm_100f"), std::string::npos) << said;
  EXPECT_NE(said.find("flashinfer_cubin/cubins/" + kGemmFolder + "/Gemm_Bfloat16_E4m3_t128x8_sm100f.cubin"),
            std::string::npos)
      << said;
  EXPECT_NE(said.find("would load code that cannot run there"), std::string::npos) << said;
  // The host check in the runner the module compiles is linked too; the CUTLASS module is not.
  EXPECT_NE(r.out.find("TVM_FFI_ICHECK_EQ(major, 10)"), std::string::npos) << r.out;
  const size_t other = r.out.find("module gen_cutlass_gemm_sm103_module");
  ASSERT_NE(other, std::string::npos) << r.out;
  EXPECT_NE(r.out.compare(r.out.find('\n', other) + 1, 16, "      prebuilt: "), 0) << r.out;
}

TEST(Prebuilt, JsonAndSarifCarryTheLinks) {
  TempDir dir;
  const fs::path site = MakeSite(dir);
  RunResult r = RunArchpatch({"audit", "--arch", "sm_120", "--json", site.string()});
  ASSERT_EQ(r.exit_code, 1) << r.err;
  const json doc = json::parse(r.out);
  const json* g = GroupAt(doc, "flashinfer/jit/gemm.py", 8);
  ASSERT_NE(g, nullptr) << r.out;
  EXPECT_EQ((*g)["widen"]["verdict"], "widen-unsafe") << g->dump();
  ASSERT_EQ((*g)["prebuilt"].size(), 1u) << g->dump();
  const json& p = (*g)["prebuilt"][0];
  EXPECT_EQ(p["group"], "TRTLLM_GEN_GEMM");
  EXPECT_EQ(p["path"], kGemmFolder);
  EXPECT_EQ(p["via"], "gen_trtllm_gen_gemm_module");
  EXPECT_EQ(p["arches"], json::array({"sm_100f"}));
  EXPECT_EQ(p["arches_from"], "file-names");
  EXPECT_EQ(p["binary_count"], 1);
  EXPECT_EQ(p["runs_on_target"], false);
  EXPECT_TRUE(p["declared"].get<std::string>().ends_with("flashinfer/artifacts.py:7")) << p.dump();
  bool finding_has_it = false;
  for (const json& f : doc["findings"]) {
    if (f["file"].get<std::string>().ends_with("gemm.py") && f["line"] == 8) finding_has_it = f.contains("prebuilt");
  }
  EXPECT_TRUE(finding_has_it) << r.out;
  const json* plain = GroupAt(doc, "flashinfer/jit/gemm.py", 19);
  ASSERT_NE(plain, nullptr) << r.out;
  EXPECT_EQ((*plain)["prebuilt"], json::array());
  RunResult sarif = RunArchpatch({"audit", "--arch", "sm_120", "--sarif", site.string()});
  EXPECT_NE(sarif.out.find("Prebuilt: its module loads precompiled code with no image for sm_120"), std::string::npos)
      << sarif.out;
  EXPECT_NE(sarif.out.find("\"prebuilt_runs_on_target\": false"), std::string::npos) << sarif.out;
}

TEST(Prebuilt, AnImageForTheTargetOrNoneInstalledIsNotARefusal) {
  TempDir with_image;
  RunResult r = RunArchpatch(
      {"audit", "--arch", "sm_120", "--json", MakeSite(with_image, true, "Gemm_Bfloat16_E4m3.cubin").string()});
  const json doc = json::parse(r.out);
  const json* g = GroupAt(doc, "flashinfer/jit/gemm.py", 8);
  ASSERT_NE(g, nullptr) << r.out;
  EXPECT_EQ((*g)["prebuilt"][0]["arches"], json::array({"sm_100f", "sm_120"})) << g->dump();
  EXPECT_EQ((*g)["prebuilt"][0]["arches_from"], "cubin-headers") << g->dump();
  EXPECT_EQ((*g)["prebuilt"][0]["runs_on_target"], true);
  EXPECT_NE((*g)["widen"]["verdict"], "widen-unsafe") << g->dump();
  TempDir bare;
  RunResult u = RunArchpatch({"audit", "--arch", "sm_120", MakeSite(bare, false).string()});
  EXPECT_NE(u.out.find("prebuilt: its module loads precompiled code whose arches archpatch cannot see: "
                       "TRTLLM_GEN_GEMM via gen_trtllm_gen_gemm_module (fetched at run time"),
            std::string::npos)
      << u.out;
}

fs::path WriteRule(const TempDir& dir, const std::string& scope) {
  const fs::path rule = dir.path() / "widen-trtllm-gemm.yaml";
  WriteFile(rule,
            "id: widen-trtllm-gemm\nsummary: test\ndistribution: flashinfer-python\ntargets: [sm_120]\nedits:\n"
            "  - file: flashinfer/jit/gemm.py\n    python-gate:\n      scope: " +
                scope + "\n      name: supported_major_versions\n");
  return rule;
}

TEST(Prebuilt, ApplyRefusesNamingTheBinariesUnlessAllowed) {
  TempDir dir;
  const fs::path site = MakeSite(dir);
  const fs::path rule = WriteRule(dir, "gen_trtllm_gen_gemm_module");
  const fs::path gemm = site / "flashinfer" / "jit" / "gemm.py";
  const std::string before = ReadFile(gemm);
  for (const std::vector<std::string>& extra : std::vector<std::vector<std::string>>{{}, {"--verify"}}) {
    std::vector<std::string> args = {"apply", "--rule", rule.string(), "--site-packages", site.string()};
    args.insert(args.end(), extra.begin(), extra.end());
    RunResult r = RunArchpatch(args);
    EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
    EXPECT_NE(r.err.find("flashinfer/jit/gemm.py:8:34: rule 'widen-trtllm-gemm' edit 1 changes "
                         "'supported_major_versions=[10]': its module loads precompiled code with no image for sm_120"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find((site / "flashinfer_cubin/cubins").string() + "/" + kGemmFolder +
                         "/Gemm_Bfloat16_E4m3_t128x8_sm100f.cubin"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("nothing was changed"), std::string::npos) << r.err;
    EXPECT_EQ(ReadFile(gemm), before);
  }
  RunResult dry =
      RunArchpatch({"apply", "--dry-run", "--json", "--rule", rule.string(), "--site-packages", site.string()});
  EXPECT_NE(dry.out.find("\"kind\": \"prebuilt-without-image\""), std::string::npos) << dry.out << dry.err;
  RunResult allowed =
      RunArchpatch({"apply", "--allow-hazard", "--rule", rule.string(), "--site-packages", site.string()});
  EXPECT_EQ(allowed.exit_code, 0) << allowed.out << allowed.err;
  EXPECT_NE(ReadFile(gemm), before);
}

TEST(Prebuilt, ApplyRefusesAReplaceInAFunctionThatLoadsTheModule) {
  TempDir dir;
  const fs::path site = MakeSite(dir);
  const fs::path rule = dir.path() / "widen-trtllm-backend.yaml";
  WriteFile(rule,
            "id: widen-trtllm-backend\nsummary: test\ndistribution: flashinfer-python\ntargets: [sm_120]\nedits:\n"
            "  - file: flashinfer/gemm.py\n    replace:\n      old: '[\"100\", \"103\"]'\n"
            "      new: '[\"100\", \"103\", \"120\"]'\n");
  const std::string before = ReadFile(site / "flashinfer" / "gemm.py");
  RunResult r = RunArchpatch({"apply", "--rule", rule.string(), "--site-packages", site.string()});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.err.find("flashinfer/gemm.py:11:44: rule 'widen-trtllm-backend' edit 1 changes '[\"100\", \"103\"]': "
                       "its module loads precompiled code with no image for sm_120: TRTLLM_GEN_GEMM"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(ReadFile(site / "flashinfer" / "gemm.py"), before);
}

TEST(Prebuilt, ApplyOfAModuleWithoutArtifactsIsNotRefused) {
  TempDir dir;
  const fs::path site = MakeSite(dir);
  RunResult r = RunArchpatch(
      {"apply", "--rule", WriteRule(dir, "gen_cutlass_gemm_sm103_module").string(), "--site-packages", site.string()});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
}

// flashinfer-jit-cache: a prebuilt module is loaded instead of a JIT build whatever the gate says.
TEST(Prebuilt, APrebuiltModuleOfTheJitCacheIsLinkedByItsName) {
  TempDir dir;
  const fs::path site = MakeSite(dir);
  const fs::path so = site / "flashinfer_jit_cache" / "jit_cache" / "cutlass_gemm_103" / "cutlass_gemm_103.so";
  WriteFile(so, CubinHeader(103));
  RunResult r = RunArchpatch({"audit", "--arch", "sm_120", "--json", site.string()});
  const json doc = json::parse(r.out);
  const json* g = GroupAt(doc, "flashinfer/jit/gemm.py", 19);
  ASSERT_NE(g, nullptr) << r.out;
  ASSERT_EQ((*g)["prebuilt"].size(), 1u) << g->dump();
  EXPECT_EQ((*g)["prebuilt"][0]["group"], "cutlass_gemm_103");
  EXPECT_EQ((*g)["prebuilt"][0]["via"], "gen_cutlass_gemm_sm103_module");
  EXPECT_EQ((*g)["prebuilt"][0]["arches"], json::array({"sm_103"}));
  EXPECT_EQ((*g)["prebuilt"][0]["binaries"], json::array({so.string()}));
  EXPECT_EQ((*g)["widen"]["verdict"], "widen-unsafe");
}

TEST(Prebuilt, TheKnownUnsafeTrtllmGenMoeIsAlsoFoundFromThePackage) {
  TempDir dir;
  const fs::path site = MakeSite(dir);
  RunResult r = RunArchpatch({"audit", "--arch", "sm_120", site.string()});
  const size_t known = r.out.find("do not widen (1 root cause, 1 place in 1 file): FlashInfer's TRT-LLM-gen fused MoE");
  ASSERT_NE(known, std::string::npos) << r.out;
  const size_t gate = r.out.find("module gen_trtllm_gen_fused_moe_sm100_module", known);
  ASSERT_NE(gate, std::string::npos) << r.out;
  const size_t derived = r.out.find(
      "prebuilt: its module loads precompiled code with no image for sm_120: "
      "TRTLLM_GEN_BMM via gen_trtllm_gen_fused_moe_sm100_module (sm_100f",
      gate);
  ASSERT_NE(derived, std::string::npos) << r.out;
  EXPECT_LT(derived - gate, 1200u) << r.out;
}

TEST(Prebuilt, SuggestRefusesNamingTheBinaries) {
  TempDir dir;
  const fs::path site = MakeSite(dir);
  RunResult r = RunArchpatch(
      {"suggest", "--arch", "sm_120", "--site-packages", site.string(), "--out", (dir.path() / "out").string()});
  // The builder and the runner's check share the reason: it heads the two, said once.
  const size_t refused = r.out.find("\n  G");
  ASSERT_NE(r.out.find("/flashinfer/jit/gemm.py:8:9 'supported_major_versions=[10]'\n", refused), std::string::npos)
      << r.out << r.err;
  const size_t heading = r.out.rfind("refused 2 root causes: ", refused);
  ASSERT_NE(heading, std::string::npos) << r.out;
  const std::string line = r.out.substr(heading, refused - heading);
  EXPECT_NE(line.find("widening it is unsafe: its module loads precompiled code with no image for sm_120"),
            std::string::npos)
      << line;
  EXPECT_NE(line.find("Gemm_Bfloat16_E4m3_t128x8_sm100f.cubin"), std::string::npos) << line;
  EXPECT_EQ(r.out.find("widening it is unsafe", refused), std::string::npos) << r.out;
}

}  // namespace
}  // namespace archpatch::e2e
