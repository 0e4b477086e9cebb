// archpatch audit end to end: the real binary over tests/fixtures/cuda and small trees.
#include <nlohmann/json.hpp>

#include "e2e.h"

namespace archpatch::e2e {
namespace {

TEST(Audit, JsonListsGatesExcludingTheTargetSortedByFileAndLine) {
  RunResult r = RunArchpatch({"audit", "--arch", "sm_120", "--json", "tests/fixtures/cuda"});
  ASSERT_EQ(r.exit_code, 1) << r.err;
  nlohmann::json doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["arch"], "sm_120");
  EXPECT_GT(doc["against"].size(), 20u);
  EXPECT_EQ(doc["files_scanned"], 10);  // 6 fixtures, runtime_forms.cu and package/ (3 files)
  const auto& findings = doc["findings"];
  ASSERT_FALSE(findings.empty());
  std::vector<std::pair<std::string, int>> places;
  bool pdl = false, runtime = false;
  for (const auto& f : findings) {
    places.emplace_back(f["file"], f["line"]);
    EXPECT_EQ(f["verdict"]["sm_120"], "false") << f.dump();
    if (f["file"] == "tests/fixtures/cuda/norm_pdl.cuh" && f["line"] == 10) {
      pdl = true;
      EXPECT_EQ(f["kind"], "cuda-gate");
      EXPECT_EQ(f["text"], "(__CUDA_ARCH__ >= 900 && __CUDA_ARCH__ < 1200)");
      EXPECT_EQ(f["column"], 5);
      EXPECT_EQ(f["verdict"]["sm_90"], "true");
      EXPECT_EQ(f["scope"], "rmsnorm_kernel");
    }
    if (f["kind"] == "cpp-runtime-gate" && f["line"] == 12) runtime = true;
  }
  EXPECT_TRUE(pdl) << r.out;
  EXPECT_TRUE(runtime) << r.out;
  EXPECT_TRUE(std::is_sorted(places.begin(), places.end()));
}

TEST(Audit, TrapsInCommentsAndStringsAreNotReported) {
  RunResult r = RunArchpatch({"audit", "--arch", "sm_120", "--json", "tests/fixtures/cuda/traps.cu"});
  nlohmann::json doc = nlohmann::json::parse(r.out);
  for (const auto& f : doc["findings"]) {
    EXPECT_GE(f["line"].get<int>(), 14) << f.dump();  // lines 1-12 hold only comments and strings
  }
}

TEST(Audit, HumanOutputSaysWhatTheGateMeans) {
  RunResult r =
      RunArchpatch({"audit", "--arch", "sm_120", "--each", "tests/fixtures/cuda/norm_pdl.cuh"}, "NO_COLOR=1 ");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("tests/fixtures/cuda/norm_pdl.cuh:10:5: cuda-gate: #if (__CUDA_ARCH__ >= 900 && "
                       "__CUDA_ARCH__ < 1200)\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("verdict: true on sm_90..sm_110f; false on sm_75..sm_89, sm_120..sm_121f"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("means:   built for sm_120"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("\x1b["), std::string::npos) << "no colour when not a terminal";
}

TEST(Audit, AgainstLimitsTheComparison) {
  // sm_120 vs sm_121 only: the `< 1200` bound excludes both, so nothing is reported.
  RunResult r =
      RunArchpatch({"audit", "--arch", "sm_120", "--against", "sm_121", "--json", "tests/fixtures/cuda/norm_pdl.cuh"});
  EXPECT_EQ(r.exit_code, 0) << r.out;
  nlohmann::json doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["against"], nlohmann::json({"sm_121"}));
  EXPECT_TRUE(doc["findings"].empty());
}

TEST(Audit, NoFindingExitsZero) {
  TempDir dir;
  WriteFile(dir.path() / "plain.cu", "__global__ void k(float* p) { p[0] = 1.f; }\n");
  RunResult r = RunArchpatch({"audit", "--arch", "sm_120", dir.path().string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("no root cause keeps sm_120 out (1 file scanned)"), std::string::npos) << r.out;
}

TEST(Audit, MalformedConditionWarnsAndTheAuditGoesOn) {
  RunResult r = RunArchpatch({"audit", "--arch", "sm_120", "--json", "tests/fixtures/cuda/unbalanced.cuh"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("archpatch: warning: tests/fixtures/cuda/unbalanced.cuh:2:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("'#endif' without '#if'"), std::string::npos) << r.err;
  nlohmann::json doc = nlohmann::json::parse(r.out);
  ASSERT_EQ(doc["findings"].size(), 1u);
  EXPECT_EQ(doc["findings"][0]["line"], 5);
}

TEST(Audit, MissingPathAndBadArchAreUsageErrors) {
  RunResult missing = RunArchpatch({"audit", "--arch", "sm_120", "no/such/dir"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_EQ(missing.err, "archpatch: error: audit: no/such/dir: no such file or directory\n");
  RunResult bad = RunArchpatch({"audit", "--arch", "sm_999", "tests/fixtures/cuda"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("unknown arch 'sm_999'"), std::string::npos) << bad.err;
  RunResult none = RunArchpatch({"audit", "tests/fixtures/cuda"});
  EXPECT_EQ(none.exit_code, 2);
}

TEST(Audit, SkipsBuildAndGitFoldersAndSymlinkedDirectories) {
  TempDir dir;
  const std::string gate = "#if __CUDA_ARCH__ < 1200\nint x;\n#endif\n";
  WriteFile(dir.path() / "src/a.cu", gate);
  WriteFile(dir.path() / ".git/b.cu", gate);
  WriteFile(dir.path() / "build/c.cu", gate);
  WriteFile(dir.path() / "other/d.cu", gate);
  std::filesystem::create_directory_symlink(dir.path() / "other", dir.path() / "src/link");
  RunResult r = RunArchpatch({"audit", "--arch", "sm_120", "--json", (dir.path() / "src").string()});
  nlohmann::json doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["files_scanned"], 1);
  ASSERT_EQ(doc["findings"].size(), 1u);
}

// A file name is bytes, not text: --json and SARIF print what is not UTF-8 as U+FFFD and stay
// JSON, on one thread or several (a worker's throw had aborted the audit, exit 134).
TEST(Audit, FileNamesThatAreNotUtf8KeepTheDocumentsJson) {
  TempDir dir;
  const std::string gate = "#if __CUDA_ARCH__ >= 900 && __CUDA_ARCH__ < 1200\nint x;\n#endif\n";
  for (const char* name : {"a\xff.cu", "b\xfe.cu", "c\xc3.cu", "ok.cu"}) WriteFile(dir.path() / name, gate);
  for (const char* jobs : {"1", "4"}) {
    RunResult r = RunArchpatch({"audit", "-j", jobs, "--arch", "sm_120", "--json", dir.path().string()});
    ASSERT_EQ(r.exit_code, 1) << r.err;
    const nlohmann::json doc = nlohmann::json::parse(r.out);
    ASSERT_EQ(doc["findings"].size(), 4u);
    EXPECT_EQ(doc["findings"][0]["file"], (dir.path() / "a\xef\xbf\xbd.cu").string());
    EXPECT_EQ(doc["findings"][3]["file"], (dir.path() / "ok.cu").string());
    r = RunArchpatch({"audit", "-j", jobs, "--arch", "sm_120", "--sarif", dir.path().string()});
    ASSERT_EQ(r.exit_code, 1) << r.err;
    EXPECT_TRUE(nlohmann::json::accept(r.out)) << r.out;
  }
}

TEST(Audit, UndefUnknownDecidesProjectMacros) {
  TempDir dir;
  WriteFile(dir.path() / "m.cu", "#if defined(ENABLE_FP8) || __CUDA_ARCH__ >= 1000\nint x;\n#endif\n");
  RunResult unknown = RunArchpatch({"audit", "--arch", "sm_90", "--json", dir.path().string()});
  EXPECT_EQ(unknown.exit_code, 0) << unknown.out;  // unknown on sm_90 is not false
  RunResult undef = RunArchpatch({"audit", "--arch", "sm_90", "--undef-unknown", "--json", dir.path().string()});
  EXPECT_EQ(undef.exit_code, 1) << undef.out;
  RunResult defined = RunArchpatch({"audit", "--arch", "sm_90", "-D", "ENABLE_FP8", "--json", dir.path().string()});
  EXPECT_EQ(defined.exit_code, 0) << defined.out;
}

}  // namespace
}  // namespace archpatch::e2e

namespace archpatch::e2e {
namespace {

// An environment audit scans site-packages, reports installed files that no longer match their
// RECORD, and adds the binary coverage report without being asked.
TEST(AuditEnvironment, ReportsGatesRecordMismatchesAndBinaries) {
  TempDir dir;
  std::filesystem::copy(std::filesystem::path(ARCHPATCH_SOURCE_DIR) / "examples/minipkg/site-packages", dir.path(),
                        std::filesystem::copy_options::recursive);
  const auto edited = dir.path() / "minifi/jit/core.py";
  WriteFile(edited, ReadFile(edited) + "# edited by hand\n");
  // Only the sources audit reads are checked against RECORD, not every installed file.
  const auto metadata = dir.path() / "minifi-0.1.0.dist-info/METADATA";
  WriteFile(metadata, ReadFile(metadata) + "Summary: changed\n");

  RunResult r = RunArchpatch({"audit", "--arch", "sm_120", "--site-packages", dir.path().string(), "--json"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  nlohmann::json doc = nlohmann::json::parse(r.out);
  ASSERT_EQ(doc["record_mismatches"].size(), 1u) << r.out;
  EXPECT_EQ(doc["record_mismatches"][0]["file"], edited.string());
  EXPECT_EQ(doc["record_mismatches"][0]["state"], "modified");
  EXPECT_EQ(doc["record_mismatches"][0]["distribution"], "minifi");
  EXPECT_TRUE(doc.contains("binaries"));
  EXPECT_GE(doc["findings"].size(), 3u);

  RunResult text = RunArchpatch({"audit", "--arch", "sm_120", "--site-packages", dir.path().string()});
  EXPECT_NE(text.err.find("archpatch: warning: " + edited.string() +
                          ": modified since minifi was installed (does not match RECORD)"),
            std::string::npos)
      << text.err;

  RunResult off =
      RunArchpatch({"audit", "--arch", "sm_120", "--site-packages", dir.path().string(), "--json", "--no-binaries"});
  EXPECT_FALSE(nlohmann::json::parse(off.out).contains("binaries"));
}

TEST(AuditEnvironment, RefusesPathsAndAnEnvironmentTogether) {
  RunResult r = RunArchpatch({"audit", "--arch", "sm_120", "--site-packages", "/tmp", "examples/minipkg"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "archpatch: error: audit: give PATHs or an environment (--python, --site-packages, --root), "
            "not both\n");
}

}  // namespace
}  // namespace archpatch::e2e
