// The hazard checks as a user meets them: `audit` on the fixture tree (empty kernel, wgmma,
// tcgen05, griddepcontrol, unknown), `apply` refusing the seed case (Python gate widened, CUDA
// gate not) unless --allow-hazard, the blast radius in a dry run and in the manifest, the compiler
// proof with --verify, and `verify --proof`.
#include <filesystem>

#include <nlohmann/json.hpp>

#include "e2e.h"

namespace archpatch::e2e {
namespace {

namespace fs = std::filesystem;

const fs::path kTree = fs::path(ARCHPATCH_SOURCE_DIR) / "tests/fixtures/hazard/tree";

TEST(HazardAudit, ReadsWellToSomeoneWhoDeploysModels) {
  RunResult r = RunArchpatch(
      {"audit", "--arch", "sm_120", "--undef-unknown", "--each", "--show-all", "tests/fixtures/hazard/tree"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("empty-kernel: allreduce_fusion_kernel"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("On sm_120 this kernel compiles to an empty body: it would run and return garbage without "
                       "an error"),
            std::string::npos);
  EXPECT_NE(r.out.find("Widening this gate to sm_120 is unsafe: the block uses wgmma"), std::string::npos);
  EXPECT_NE(r.out.find("Widening this gate to sm_120 is unsafe: the block uses tcgen05"), std::string::npos);
  EXPECT_NE(r.out.find("Widening this gate to sm_120 looks safe: what the block needs (griddepcontrol) exists on "
                       "sm_120."),
            std::string::npos);
  EXPECT_NE(r.out.find("may or may not be safe: the block calls code archpatch cannot see"), std::string::npos);
}

// The feature table is read beside the scan; one that cannot be parsed still fails the audit
// with its place and exit 3, and no report is printed (a report without the widen verdicts
// would read as "nothing to fear").
TEST(HazardAudit, ABrokenFeatureTableFailsTheAuditWithItsPlace) {
  TempDir data;
  fs::copy(fs::path(ARCHPATCH_SOURCE_DIR) / "rules", data.path() / "rules", fs::copy_options::recursive);
  WriteFile(data.path() / "rules/features.yaml", "features:\n  - {name: wgmma\n");
  for (const char* format : {"--json", "--sarif"}) {
    RunResult r = RunArchpatch({"audit", "--arch", "sm_120", format, "tests/fixtures/hazard/tree"},
                               "ARCHPATCH_DATA_DIR=" + ShellQuote(data.path().string()) + " ");
    EXPECT_EQ(r.exit_code, 3) << r.err;
    EXPECT_EQ(r.out, "") << format;
    EXPECT_NE(r.err.find("features.yaml:3:1:"), std::string::npos) << r.err;
  }
  RunResult fine = RunArchpatch({"audit", "--arch", "sm_120", "--json", "tests/fixtures/hazard/tree"});
  EXPECT_NE(fine.out.find("\"widen\""), std::string::npos) << fine.err;
}

TEST(HazardAudit, JsonCarriesTheHazardFields) {
  RunResult r = RunArchpatch({"audit", "--arch", "sm_120", "--undef-unknown", "--json", "tests/fixtures/hazard/tree"});
  ASSERT_EQ(r.exit_code, 1) << r.err;
  nlohmann::json doc = nlohmann::json::parse(r.out);
  int empty = 0, unsafe = 0;
  for (const auto& f : doc["findings"]) {
    if (f["kind"] == "empty-kernel" && f["text"] == "allreduce_fusion_kernel") {
      ++empty;
      EXPECT_EQ(f["severity"], "error");
      EXPECT_EQ(f["verdict"]["sm_120"], "false");
      EXPECT_EQ(f["verdict"]["sm_90"], "true");
      EXPECT_EQ(f["gates"][0]["widen"]["widen"], "widen-safe");
    }
    if (f["kind"] == "cuda-gate" && f.value("widen", "") == "widen-unsafe" &&
        f["file"].get<std::string>().find("blackwell_mma.cuh") != std::string::npos) {
      ++unsafe;
      EXPECT_EQ(f["needs"][0]["feature"], "tcgen05");
      EXPECT_NE(f["needs"][0]["source"].get<std::string>().find("PTX ISA"), std::string::npos);
    }
  }
  EXPECT_EQ(empty, 1) << r.out;
  EXPECT_EQ(unsafe, 1) << r.out;
}

// A site-packages with the fixture package installed as distribution "pkg", and rule files.
class HazardApply : public ::testing::Test {
 protected:
  void SetUp() override {
    site_ = dir_.path() / "site";
    fs::create_directories(site_);
    fs::copy(kTree / "pkg", site_ / "pkg", fs::copy_options::recursive);
    WriteFile(site_ / "pkg-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: pkg\nVersion: 1.0\n");
    WriteFile(site_ / "pkg-1.0.dist-info/RECORD", "");
    WriteRule("pkg-python-only", kPythonEdit);
    WriteRule("pkg-both", std::string(kPythonEdit) + kCudaEdit);
    WriteRule("pkg-tcgen05",
              "  - file: pkg/include/blackwell_mma.cuh\n"
              "    cuda-gate: {macro: __CUDA_ARCH__, strategy: drop-bound}\n"
              "    expect: 1\n");
  }

  void WriteRule(const std::string& id, const std::string& edits) {
    WriteFile(dir_.path() / "rules" / (id + ".yaml"),
              "id: " + id + "\nsummary: test rule\ndistribution: pkg\ntargets: [sm_120]\nedits:\n" + edits);
  }

  RunResult Apply(std::vector<std::string> args) {
    std::vector<std::string> all = {"apply", "--site-packages", site_.string(), "--no-clear-cache"};
    all.insert(all.end(), args.begin(), args.end());
    return RunArchpatch(all, "HOME=" + ShellQuote(dir_.path().string()) + " ");
  }

  std::string Rule(const std::string& id) const { return (dir_.path() / "rules" / (id + ".yaml")).string(); }

  static constexpr const char* kPythonEdit =
      "  - file: pkg/jit/comm.py\n"
      "    python-gate: {scope: gen_allreduce_fusion_module, name: supported_major_versions, add: major}\n"
      "    expect: 1\n";
  static constexpr const char* kCudaEdit =
      "  - file: pkg/include/allreduce_fusion.cuh\n"
      "    cuda-gate: {macro: __CUDA_ARCH__, scope: allreduce_fusion_kernel, strategy: drop-bound}\n"
      "    expect: 1\n";

  TempDir dir_;
  fs::path site_;
};

TEST_F(HazardApply, WideningOnlyThePythonGateIsRefusedAndChangesNothing) {
  const std::string before = ReadFile(site_ / "pkg/jit/comm.py");
  RunResult r = Apply({"--rule", Rule("pkg-python-only")});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.err.find("refusing to apply: the plan has hazards (nothing was changed; --allow-hazard applies anyway)"),
            std::string::npos)
      << r.err;
  EXPECT_NE(
      r.err.find(
          "pkg/include/allreduce_fusion.cuh:11:17: kernel 'allreduce_fusion_kernel' (built by pkg/jit/comm.py): On "
          "sm_120 this kernel compiles to an empty body"),
      std::string::npos)
      << r.err;
  EXPECT_EQ(ReadFile(site_ / "pkg/jit/comm.py"), before);
  EXPECT_FALSE(fs::exists(site_ / ".archpatch/manifest.json"));
}

TEST_F(HazardApply, AllowHazardAppliesAnyway) {
  RunResult r = Apply({"--rule", Rule("pkg-python-only"), "--allow-hazard"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(ReadFile(site_ / "pkg/jit/comm.py").find("[9, 10, 12]"), std::string::npos);
}

TEST_F(HazardApply, OpeningATcgen05BlockIsRefused) {
  RunResult r = Apply({"--rule", Rule("pkg-tcgen05")});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.err.find("Widening this gate to sm_120 is unsafe: the block uses tcgen05"), std::string::npos) << r.err;
}

TEST_F(HazardApply, DryRunShowsTheBlastRadiusAndApplyVerifyProvesAndRecordsIt) {
  RunResult dry = Apply({"--rule", Rule("pkg-both"), "--dry-run"});
  EXPECT_EQ(dry.exit_code, 0) << dry.out << dry.err;
  EXPECT_NE(dry.out.find("pkg/include/allreduce_fusion.cuh:12: blast radius: sm_120, sm_120a, sm_120f, sm_121, "
                         "sm_121a, sm_121f (arches whose compiled code this edit changes)"),
            std::string::npos)
      << dry.out;

  RunResult r = Apply({"--rule", Rule("pkg-both"), "--verify", "--proof-engine", "libclang"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("proof: pkg/include/allreduce_fusion.cuh: proven with libclang"), std::string::npos) << r.out;
  nlohmann::json manifest = nlohmann::json::parse(ReadFile(site_ / ".archpatch/manifest.json"));
  bool recorded = false;
  for (const auto& f : manifest["entries"][0]["files"]) {
    if (f["path"] == "pkg/include/allreduce_fusion.cuh") {
      recorded = f["blast_radius"]["arches"].size() == 6;
    }
  }
  EXPECT_TRUE(recorded) << manifest.dump(2);

  RunResult proof =
      RunArchpatch({"verify", "--proof", "--site-packages", site_.string(), "--proof-engine", "libclang"});
  EXPECT_EQ(proof.exit_code, 0) << proof.out << proof.err;
  EXPECT_NE(proof.out.find("proof: pkg/include/allreduce_fusion.cuh: proven with libclang: the edit turns the block "
                           "on for sm_120"),
            std::string::npos)
      << proof.out;
}

}  // namespace
}  // namespace archpatch::e2e
