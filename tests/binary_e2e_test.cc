// archpatch audit --binaries / --binaries-only on nvcc-built shared objects.
#include <nlohmann/json.hpp>

#include "binary/nvcc_fixture_test_util.h"
#include "e2e.h"

namespace archpatch::e2e {
namespace {

namespace bt = archpatch::binary::testing;

class AuditBinaries : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!bt::HaveNvcc()) GTEST_SKIP() << "nvcc not found at " << bt::kNvcc;
    std::filesystem::create_directories(dir_.path() / "pkg");
    std::filesystem::copy_file(bt::SharedObject("a",
                                                "-gencode arch=compute_90a,code=[sm_90a,compute_90a] "
                                                "-gencode arch=compute_100a,code=sm_100a"),
                               dir_.path() / "pkg/_hopper.so");
    std::filesystem::copy_file(bt::SharedObject("ptxonly", "-gencode arch=compute_80,code=compute_80"),
                               dir_.path() / "pkg/_jit.so");
  }
  TempDir dir_;
};

TEST_F(AuditBinaries, BinariesOnlyReportsEachFileAndTotalsAndExitsOneOnNoImage) {
  RunResult r = RunArchpatch({"audit", "--arch", "sm_120", "--binaries-only", dir_.path().string()});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("  no-image  pkg/_hopper.so\n            sass: sm_90a sm_100a; ptx: compute_90a\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("  ptx-jit   pkg/_jit.so\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("total: sm_120: 2 files: 0 native, 1 ptx-jit, 1 no-image\n"), std::string::npos) << r.out;
}

TEST_F(AuditBinaries, JsonCarriesTheBinariesObject) {
  RunResult r = RunArchpatch({"audit", "--arch", "sm_90", "--binaries-only", "--json", dir_.path().string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;  // sm_90 runs sm_90a natively and JITs compute_80
  nlohmann::json doc = nlohmann::json::parse(r.out);
  const auto& b = doc["binaries"];
  EXPECT_EQ(b["targets"], nlohmann::json::array({"sm_90"}));
  EXPECT_EQ(b["files"][0]["file"], "pkg/_hopper.so");
  EXPECT_EQ(b["files"][0]["targets"]["sm_90"]["status"], "native");
  EXPECT_EQ(b["files"][0]["targets"]["sm_90"]["runs"], "sm_90a");
  EXPECT_EQ(b["totals"]["sm_90"]["ptx-jit"], 1);
}

// A library named on the command line is a binary, not a source: never handed to the C++ scanner
// (libclang took 14 GB and 4 minutes on libcublasLt.so), and its kernel images are reported
// without --binaries.
TEST_F(AuditBinaries, ANamedLibraryIsReadAsABinaryNotAsSource) {
  const std::string so = (dir_.path() / "pkg/_hopper.so").string();
  RunResult r = RunArchpatch({"audit", "--arch", "sm_120", so});
  EXPECT_EQ(r.exit_code, 1) << r.err;  // its images cannot run on sm_120
  EXPECT_NE(r.out.find("(0 files scanned)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  no-image  " + so + "\n"), std::string::npos) << r.out;
  EXPECT_EQ(r.err, "");
  r = RunArchpatch({"audit", "--arch", "sm_120", "--no-binaries", so});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("no-image"), std::string::npos) << r.out;
}

TEST_F(AuditBinaries, ANamedFileThatIsNotABinaryIsAUsageError) {
  WriteFile(dir_.path() / "notes.so", "INPUT(-lfoo)\n");
  RunResult r = RunArchpatch({"audit", "--arch", "sm_120", "--binaries-only", (dir_.path() / "notes.so").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("notes.so: not a CUDA binary"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace archpatch::e2e
