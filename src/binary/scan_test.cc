// A site-packages-shaped tree: binaries owned by distributions through RECORD, totals per
// distribution and per target, and the --json contract.
#include "binary/scan.h"

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "binary/nvcc_fixture_test_util.h"
#include "binary/output.h"
#include "binary/python_link.h"
#include "report/finding.h"

namespace archpatch::binary {
namespace {

namespace fs = std::filesystem;

class TempTree {
 public:
  TempTree() {
    std::string tmpl = (fs::temp_directory_path() / "archpatch_binary_XXXXXX").string();
    root_ = mkdtemp(tmpl.data());
  }
  ~TempTree() { fs::remove_all(root_); }
  const fs::path& root() const { return root_; }
  void Write(const std::string& relative, const std::string& text) const {
    fs::create_directories((root_ / relative).parent_path());
    std::ofstream(root_ / relative) << text;
  }
  void Copy(const std::string& from, const std::string& relative) const {
    fs::create_directories((root_ / relative).parent_path());
    fs::copy_file(from, root_ / relative);
  }

 private:
  fs::path root_;
};

TEST(IsCandidateName, SharedObjectsCubinsFatbinsAndPtx) {
  EXPECT_TRUE(IsCandidateName("libtorch_cuda.so"));
  EXPECT_TRUE(IsCandidateName("libnccl.so.2.21.5"));
  EXPECT_TRUE(IsCandidateName("gemm_sm100.cubin"));
  EXPECT_TRUE(IsCandidateName("k.fatbin"));
  EXPECT_TRUE(IsCandidateName("k.ptx"));
  EXPECT_FALSE(IsCandidateName("module.py"));
  EXPECT_FALSE(IsCandidateName("lib.so.backup"));
}

class SitePackages : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!testing::HaveNvcc()) GTEST_SKIP() << "nvcc not found at " << testing::kNvcc;
    const std::string hopper = testing::SharedObject(
        "a", "-gencode arch=compute_90a,code=[sm_90a,compute_90a] -gencode arch=compute_100a,code=sm_100a");
    const std::string ptx = testing::SharedObject("ptxonly", "-gencode arch=compute_80,code=compute_80");
    const std::string family = testing::SharedObject(
        "f", "-gencode arch=compute_100f,code=[sm_100f,compute_100f] -gencode arch=compute_120f,code=sm_120f");
    tree_.Copy(hopper, "fastattn/_kernels.so");
    tree_.Copy(family, "fastattn/_kernels_blackwell.so");
    tree_.Copy(ptx, "otherlib/libjit.so.1");
    tree_.Write("fastattn/__init__.py", "from . import _kernels\n");
    tree_.Write("fastattn-0.3.1.dist-info/METADATA", "Metadata-Version: 2.1\nName: fastattn\nVersion: 0.3.1\n\nbody\n");
    tree_.Write("fastattn-0.3.1.dist-info/RECORD",
                "fastattn/__init__.py,sha256=x,22\nfastattn/_kernels.so,sha256=y,1\n"
                "\"fastattn/_kernels_blackwell.so\",sha256=z,1\nfastattn-0.3.1.dist-info/RECORD,,\n");
    tree_.Write("notes/readme.txt", "not a binary");
    tree_.Write("fake/libnotelf.so", "INPUT(-lfoo)\n");  // a linker script named .so
  }
  BinaryScan Scan(const char* targets) {
    ScanOptions options;
    options.targets = *arch::ParseArchList(targets);
    return ScanBinaries({tree_.root().string()}, options);
  }
  TempTree tree_;
};

TEST_F(SitePackages, FilesAreListedWithTheirDistributionAndVerdicts) {
  BinaryScan scan = Scan("sm_120,sm_90");
  ASSERT_EQ(scan.files.size(), 3u);
  EXPECT_EQ(scan.files[0].display_path, "fastattn/_kernels.so");
  EXPECT_EQ(scan.files[0].distribution, "fastattn");
  EXPECT_EQ(scan.files[0].coverage[0].status, CoverageStatus::kNoImage);
  EXPECT_EQ(scan.files[0].coverage[1].status, CoverageStatus::kNative);
  EXPECT_EQ(scan.files[1].coverage[0].image, "sm_120f");
  EXPECT_EQ(scan.files[2].display_path, "otherlib/libjit.so.1");
  EXPECT_EQ(scan.files[2].distribution, "");
  EXPECT_EQ(scan.files[2].coverage[0].status, CoverageStatus::kPtxJit);
  EXPECT_EQ(scan.files_examined, 4u);  // the three binaries and the fake .so
  EXPECT_TRUE(scan.errors.empty());    // the fake .so is passed over quietly in a tree
  EXPECT_TRUE(scan.AnyNoImage());
}

TEST_F(SitePackages, ScanningAPackageFolderFindsTheRecordAbove) {
  ScanOptions options;
  options.targets = *arch::ParseArchList("sm_120");
  BinaryScan scan = ScanBinaries({(tree_.root() / "fastattn").string()}, options);
  ASSERT_EQ(scan.files.size(), 2u);
  EXPECT_EQ(scan.files[0].display_path, "_kernels.so");
  EXPECT_EQ(scan.files[0].distribution, "fastattn");
}

TEST_F(SitePackages, TotalsPerDistributionAndTarget) {
  BinaryScan scan = Scan("sm_120");
  ASSERT_EQ(scan.distributions.size(), 2u);
  EXPECT_EQ(scan.distributions[0].name, "fastattn");
  EXPECT_EQ(scan.distributions[0].per_target[0].files, 2u);
  EXPECT_EQ(scan.distributions[0].per_target[0].native, 1u);
  EXPECT_EQ(scan.distributions[0].per_target[0].no_image, 1u);
  EXPECT_EQ(scan.distributions[1].name, "");  // unowned files come last
  EXPECT_EQ(scan.totals[0].ptx_jit, 1u);
  EXPECT_LT(scan.bytes_read, scan.bytes_examined / 4);
}

TEST_F(SitePackages, JsonFieldsFollowTheContract) {
  nlohmann::ordered_json j = ToJson(Scan("sm_120"));
  EXPECT_EQ(j["targets"], nlohmann::ordered_json::array({"sm_120"}));
  const auto& f = j["files"][0];
  EXPECT_EQ(f["file"], "fastattn/_kernels.so");
  EXPECT_EQ(f["distribution"], "fastattn");
  EXPECT_EQ(f["format"], "elf");
  EXPECT_EQ(f["sass"], nlohmann::ordered_json::array({"sm_90a", "sm_100a"}));
  EXPECT_EQ(f["ptx"], nlohmann::ordered_json::array({"compute_90a"}));
  EXPECT_EQ(f["ptx_versions"]["compute_90a"], "9.0");
  EXPECT_EQ(f["targets"]["sm_120"]["status"], "no-image");
  EXPECT_TRUE(f["targets"]["sm_120"]["runs"].is_null());
  EXPECT_EQ(j["files"][2]["targets"]["sm_120"]["status"], "ptx-jit");
  EXPECT_EQ(j["files"][2]["targets"]["sm_120"]["runs"], "compute_80");
  EXPECT_EQ(j["files"][2]["distribution"], nullptr);
  EXPECT_EQ(j["distributions"][0]["totals"]["sm_120"]["no-image"], 1);
  EXPECT_EQ(j["totals"]["sm_120"]["files"], 3);
  EXPECT_EQ(j["examined"]["files"], 4);
}

TEST_F(SitePackages, FindingsCarryStatusAndImages) {
  std::vector<Finding> findings = ToFindings(Scan("sm_120"));
  ASSERT_EQ(findings.size(), 3u);
  EXPECT_EQ(gate::KindName(findings[0].kind), "binary-coverage");
  EXPECT_EQ(findings[0].severity, Severity::kError);
  EXPECT_EQ(findings[0].VerdictFor("sm_120"), Tri::kFalse);
  EXPECT_EQ(ToJson(findings[0])["status"], "no-image");
  EXPECT_EQ(ToJson(findings[0])["sass"], nlohmann::ordered_json::array({"sm_90a", "sm_100a"}));
  EXPECT_EQ(findings[0].summary, "no kernel image for sm_120: launching fails");
  EXPECT_EQ(ToJson(findings[2])["status"], "ptx-jit");
  EXPECT_EQ(findings[2].VerdictFor("sm_120"), Tri::kTrue);
}

TEST_F(SitePackages, TextReportGroupsByDistribution) {
  const std::string text = FormatText(Scan("sm_120"));
  EXPECT_NE(text.find("fastattn 0.3.1: sm_120: 2 files: 1 native, 0 ptx-jit, 1 no-image\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  no-image  fastattn/_kernels.so\n            sass: sm_90a sm_100a; ptx: compute_90a\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("total: sm_120: 3 files: 1 native, 1 ptx-jit, 1 no-image\n"), std::string::npos) << text;
}

TEST(ScanBinaries, ANamedFileThatIsNotABinaryIsReported) {
  TempTree tree;
  tree.Write("x.so", "INPUT(-lfoo)\n");
  ScanOptions options;
  options.targets = {*arch::ParseArch("sm_120")};
  BinaryScan scan = ScanBinaries({(tree.root() / "x.so").string()}, options);
  ASSERT_EQ(scan.errors.size(), 1u);
  EXPECT_NE(scan.errors[0].str().find("x.so: not a CUDA binary"), std::string::npos);
}

}  // namespace
}  // namespace archpatch::binary

namespace archpatch::binary {
namespace {

TEST(PythonLoadNames, ImportsAndSharedObjectLiterals) {
  const std::vector<std::string> names = PythonLoadNames(
      "import os, fastattn._C as C\n"
      "from . import _kernels  # the extension\n"
      "from fastattn.jit import load as jit_load\n"
      "# import commented_out\n"
      "lib = ctypes.CDLL(os.path.join(here, \"libfmha.so.1\"))\n");
  EXPECT_EQ(names, (std::vector<std::string>{"os", "fastattn._C", ".", "_kernels", "fastattn.jit", "fastattn.jit.load",
                                             "libfmha.so.1"}));
}

TEST_F(SitePackages, PythonGateWhoseModuleLoadsANoImageBinarySaysSo) {
  BinaryScan scan = Scan("sm_120");
  Finding gate;
  gate.file = "./fastattn/__init__.py";  // `from . import _kernels`: sm_90a/sm_100a only
  gate.kind = archpatch::gate::Kind::kPythonGate;
  gate.summary = "keeps sm_120 out of the fast path";
  Finding other = gate;
  other.file = "otherlib/__init__.py";                  // does not exist: nothing to link
  std::vector<Finding> findings = {gate, other, gate};  // the module is read once for both of its gates
  NoteNoImageBinaries(findings, scan, {tree_.root().string()});
  EXPECT_EQ(ToJson(findings[0])["no_image_binaries"], nlohmann::ordered_json::array({"fastattn/_kernels.so"}));
  EXPECT_EQ(ToJson(findings[2])["no_image_binaries"], nlohmann::ordered_json::array({"fastattn/_kernels.so"}));
  EXPECT_EQ(findings[0].summary,
            "keeps sm_120 out of the fast path; its module loads 'fastattn/_kernels.so', which has no kernel "
            "image for sm_120: ungating will not help");
  EXPECT_FALSE(ToJson(findings[1]).contains("no_image_binaries"));
}

}  // namespace
}  // namespace archpatch::binary
