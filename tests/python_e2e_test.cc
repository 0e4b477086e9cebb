// archpatch audit end to end on Python: the real binary over a tree holding Python JIT gates next
// to CUDA gates, and over a file that is not valid Python.
#include <algorithm>

#include <nlohmann/json.hpp>

#include "e2e.h"

namespace archpatch::e2e {
namespace {

// A FlashInfer-like package: the JIT builder's Python gate and the header's CUDA gate, both
// keeping SM120 out.
void WritePackage(const std::filesystem::path& root) {
  WriteFile(root / "flashinfer" / "jit" / "comm.py",
            "def gen_trtllm_mnnvl_comm_module():\n"
            "    return ctx.get_nvcc_flags_list(supported_major_versions=[9, 10])\n"
            "\n"
            "def gen_trtllm_comm_module():\n"
            "    return ctx.get_nvcc_flags_list(supported_major_versions=[9, 10])\n");
  WriteFile(root / "flashinfer" / "data" / "include" / "allreduce.cuh",
            "__device__ void sync() {\n"
            "#if (__CUDA_ARCH__ >= 900) && (__CUDA_ARCH__ < 1200)\n"
            "  cudaGridDependencySynchronize();\n"
            "#endif\n"
            "}\n");
}

TEST(PythonAudit, TreeWithBothKindsListsBothSortedByFileAndLine) {
  TempDir dir;
  WritePackage(dir.path());
  RunResult r = RunArchpatch({"audit", "--arch", "sm_120", "--json", dir.path().string()});
  ASSERT_EQ(r.exit_code, 1) << r.err;
  const nlohmann::json doc = nlohmann::json::parse(r.out);
  std::vector<std::pair<std::string, int>> places;
  std::vector<std::string> python_scopes;
  bool cuda = false;
  for (const auto& f : doc["findings"]) {
    places.emplace_back(f["file"], f["line"]);
    EXPECT_EQ(f["verdict"]["sm_120"], "false") << f.dump();
    if (f["kind"] == "cuda-gate") cuda = true;
    if (f["kind"] != "python-gate") continue;
    python_scopes.push_back(f["scope"]);
    EXPECT_EQ(f["shape"], "keyword");
    EXPECT_EQ(f["name"], "supported_major_versions");
    EXPECT_EQ(f["values"], nlohmann::json::parse("[9, 10]"));
    EXPECT_EQ(f["verdict"]["sm_100"], "true");
  }
  EXPECT_TRUE(cuda) << r.out;
  EXPECT_EQ(python_scopes, (std::vector<std::string>{"gen_trtllm_mnnvl_comm_module", "gen_trtllm_comm_module"}));
  EXPECT_TRUE(std::is_sorted(places.begin(), places.end()));
}

TEST(PythonAudit, InvalidPythonIsReportedAndTheAuditGoesOn) {
  TempDir dir;
  WritePackage(dir.path());
  const std::string bad = (dir.path() / "flashinfer" / "broken.py").string();
  WriteFile(bad, "import os\nx = \"sm_90a\n");
  RunResult r = RunArchpatch({"audit", "--arch", "sm_120", "--each", dir.path().string()}, "NO_COLOR=1 ");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("archpatch: warning: " + bad + ":2:5: unterminated string literal"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("supported_major_versions=[9, 10]"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace archpatch::e2e
