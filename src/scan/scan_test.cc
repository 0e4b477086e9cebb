// Fixture-driven tests: every file under tests/fixtures/cuda carries its expected findings as
// `expect: KIND arch=verdict ...` comments on the line each finding points at.
#include "scan/scan.h"
#include "report/finding.h"
#include "scan/audit.h"

#include <filesystem>
#include <unistd.h>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace archpatch::scan {
namespace {

namespace fs = std::filesystem;

std::string Slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct Expectation {
  int line = 0;
  std::string kind;
  std::map<std::string, std::string> verdicts;
};

// Each "expect: KIND a=v b=v" segment of each line, in order.
std::vector<Expectation> ReadExpectations(const std::string& text) {
  std::vector<Expectation> out;
  std::istringstream lines(text);
  std::string line;
  static const std::regex kSegment(R"(expect:\s+([a-z-]+)((?:\s+sm_\w+=(?:true|false|unknown))*))");
  static const std::regex kPair(R"((sm_\w+)=(true|false|unknown))");
  for (int number = 1; std::getline(lines, line); ++number) {
    for (std::sregex_iterator it(line.begin(), line.end(), kSegment), end; it != end; ++it) {
      Expectation e{number, (*it)[1], {}};
      std::string pairs = (*it)[2];
      for (std::sregex_iterator p(pairs.begin(), pairs.end(), kPair); p != end; ++p) e.verdicts[(*p)[1]] = (*p)[2];
      out.push_back(std::move(e));
    }
  }
  return out;
}

std::vector<fs::path> Fixtures() {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(fs::path(ARCHPATCH_SOURCE_DIR) / "tests/fixtures/cuda")) {
    if (KindOf(e.path().string()) == FileKind::kCuda) files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

class FixtureTest : public ::testing::TestWithParam<fs::path> {};

TEST_P(FixtureTest, FindingsMatchTheInlineExpectations) {
  const fs::path path = GetParam();
  const std::string text = Slurp(path);
  Result<std::vector<Finding>> found = ScanFileGates(path.filename().string(), text, arch::AllArches(), {});
  ASSERT_TRUE(found.ok()) << found.error().str();
  std::vector<Expectation> expected = ReadExpectations(text);
  std::vector<Finding> findings = *found;
  SortFindings(findings);
  std::string listing;
  for (const Finding& f : findings)
    listing += fmt::format("  {}:{} {} '{}'\n", f.line, f.column, gate::KindName(f.kind), f.text);
  ASSERT_EQ(findings.size(), expected.size()) << path << " findings:\n" << listing;
  for (size_t i = 0; i < expected.size(); ++i) {
    const Expectation& e = expected[i];
    const Finding& f = findings[i];
    EXPECT_EQ(f.line, e.line) << path << " finding " << i << " '" << f.text << "'";
    EXPECT_EQ(gate::KindName(f.kind), e.kind) << path << ":" << e.line;
    for (const auto& [arch, value] : e.verdicts) {
      EXPECT_EQ(TriName(f.VerdictFor(arch)), value) << path << ":" << e.line << " '" << f.text << "' on " << arch;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(CudaFixtures, FixtureTest, ::testing::ValuesIn(Fixtures()), [](const auto& info) {
  std::string name = info.param.filename().string();
  for (char& c : name) c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return name;
});

TEST(ScanFileGates, ContinuationConditionIsFoldedAndSpansTheRawBytes) {
  std::string text = "#if defined(__CUDA_ARCH__) /* c */ && \\\n    __CUDA_ARCH__ < 1200\nint x;\n#endif\n";
  Result<std::vector<Finding>> found = ScanFileGates("x.cu", text, arch::AllArches(), {});
  ASSERT_TRUE(found.ok());
  ASSERT_EQ(found->size(), 1u);
  const Finding& f = (*found)[0];
  EXPECT_EQ(f.text, "defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 1200");
  EXPECT_EQ(text.substr(f.span.begin, f.span.end - f.span.begin),
            "defined(__CUDA_ARCH__) /* c */ && \\\n    __CUDA_ARCH__ < 1200");
  EXPECT_EQ(f.line, 1);
  EXPECT_EQ(f.column, 5);
  EXPECT_EQ(ToJson(f)["block"]["first_line"], 3);
  EXPECT_EQ(ToJson(f)["block"]["last_line"], 3);
}

TEST(ScanFileGates, BlockNamesTheKernelsItDeclares) {
  std::string text =
      "#if __CUDA_ARCH__ >= 900\n"
      "template <int N> __global__ void __launch_bounds__(128) gemm_sm90(float* p) { p[0] = N; }\n"
      "__global__ void plain(float*);\n"
      "#endif\n"
      "__global__ void outside(float*);\n";
  Result<std::vector<Finding>> found = ScanFileGates("k.cu", text, arch::AllArches(), {});
  ASSERT_TRUE(found.ok());
  ASSERT_EQ(found->size(), 1u);
  EXPECT_EQ(ToJson((*found)[0])["block"]["kernels"], nlohmann::ordered_json({"gemm_sm90", "plain"}));
}

TEST(ScanFileGates, ScopeIsTheEnclosingFunction) {
  std::string text =
      "namespace n {\n"
      "void Runner::launch(int x) {\n"
      "  if (x) { x++; }\n"
      "#if __CUDA_ARCH__ < 1200\n"
      "  x--;\n"
      "#endif\n"
      "}\n"
      "}\n";
  Result<std::vector<Finding>> found = ScanFileGates("s.cu", text, arch::AllArches(), {});
  ASSERT_TRUE(found.ok());
  ASSERT_EQ(found->size(), 1u);
  EXPECT_EQ((*found)[0].scope, "Runner::launch");
}

// torch's CUDALoops.cuh and nvshmem's reduce.cuh hold gates inside `if constexpr (...) {`: the
// scope is the function around it, not a function called "constexpr".
TEST(ScanFileGates, ScopeSkipsIfConstexpr) {
  std::string text =
      "template <int N> __device__ void vectorized_copy(float* x) {\n"
      "  if constexpr (N > 1) {\n"
      "#if __CUDA_ARCH__ / 100 == 9 || __CUDA_ARCH__ / 100 == 10\n"
      "    x[0] = 1;\n"
      "#endif\n"
      "  }\n"
      "}\n";
  Result<std::vector<Finding>> found = ScanFileGates("c.cuh", text, arch::AllArches(), {});
  ASSERT_TRUE(found.ok());
  ASSERT_EQ(found->size(), 1u);
  EXPECT_EQ((*found)[0].scope, "vectorized_copy");
}

// TensorRT-LLM's MoE GEMM dispatch (as FlashInfer vendors it): an arm sm_120 is false at keeps it
// out only if no other arm takes it; a check inside an arm sm_120 never enters is not reached;
// a check of a configuration's SM tests the config, not the device.
TEST(ScanFileGates, RuntimeDispatchArmsEnclosingArmsAndConfigChecks) {
  std::string text =
      "void dispatch(int sm_) {\n"
      "  if (sm_ >= 75 && sm_ < 80) {\n"
      "    run_sm75();\n"
      "  } else if (sm_ >= 80 && sm_ < 90) {\n"
      "    TLLM_CHECK_WITH_INFO(sm_ == 89, \"fp8 needs sm89\");\n"
      "    run_sm80();\n"
      "  } else if (sm_ >= 90) {\n"
      "    run_sm90();\n"
      "  } else {\n"
      "    TLLM_THROW(\"unsupported SM\");\n"
      "  }\n"
      "}\n"
      "struct CutlassGemmConfig {\n"
      "  CutlassGemmConfig(int sm_version) {\n"
      "    TLLM_CHECK_WITH_INFO(sm_version >= 100 && sm_version < 120, \"Expected SM 10x version\");\n"
      "  }\n"
      "};\n"
      "void run(const Inputs& inputs, int sm) {\n"
      "  TLLM_CHECK_WITH_INFO(inputs.gemm_config.sm_version == 80, \"SM80 fallback config\");\n"
      "  TLLM_CHECK_WITH_INFO(sm == 90, \"Hopper only\");\n"
      "}\n";
  Result<std::vector<Finding>> found = ScanFileGates("moe.cu", text, arch::AllArches(), {});
  ASSERT_TRUE(found.ok());
  std::map<int, const Finding*> at;
  for (const Finding& f : *found) at[f.line] = &f;
  EXPECT_TRUE(at.count(15)) << "a config constructor given the device's SM (TensorRT-LLM #5018)";
  EXPECT_FALSE(at.count(19)) << "a check of the config's SM";
  ASSERT_TRUE(at.count(20)) << "a device check beside them stays";
  ASSERT_TRUE(at.count(4) && at.count(5));
  const std::vector<std::string> others = {"sm_80", "sm_89", "sm_90"};
  EXPECT_FALSE(ExcludesTarget(*at[4], "sm_120", others)) << "sm_120 takes the sm_ >= 90 arm";
  EXPECT_FALSE(ExcludesTarget(*at[5], "sm_120", others)) << "sm_120 never enters the 80..90 arm";
  EXPECT_TRUE(ExcludesTarget(*at[5], "sm_86", {"sm_89"})) << "sm_86 enters it and is refused";
  EXPECT_EQ(ToJson(*at[4])["earlier_verdict"]["sm_86"], "false") << "sm_86 takes the 80..90 arm itself";
}

TEST(ScanFileGates, DefineOnTheCommandLineFixesAMacro) {
  std::string text = "#if defined(USE_SM90) && __CUDA_ARCH__ >= 900\nint x;\n#endif\n";
  cuda::MacroEnv env;
  ASSERT_TRUE(cuda::AddMacroFlag(env, "USE_SM90", true).ok());
  Result<std::vector<Finding>> found = ScanFileGates("d.cu", text, arch::AllArches(), env);
  ASSERT_TRUE(found.ok());
  ASSERT_EQ(found->size(), 1u);
  EXPECT_EQ((*found)[0].VerdictFor("sm_90"), Tri::kTrue);
  Result<std::vector<Finding>> unknown = ScanFileGates("d.cu", text, arch::AllArches(), {});
  EXPECT_EQ((*unknown)[0].VerdictFor("sm_90"), Tri::kUnknown);
  EXPECT_EQ((*unknown)[0].VerdictFor("sm_80"), Tri::kFalse);
}

TEST(ScanFileGates, MalformedConditionIsAWarningAndTheFileGoesOn) {
  std::string text = "#if __CUDA_ARCH__ >= (900\n#endif\n#if __CUDA_ARCH__ < 1200\n#endif\n";
  Result<FileGates> found = ScanFileGatesWithWarnings("m.cu", text, arch::AllArches(), {});
  ASSERT_TRUE(found.ok());
  ASSERT_EQ(found->warnings.size(), 1u);
  EXPECT_EQ(found->warnings[0].where.line, 1);
  EXPECT_NE(found->warnings[0].message.find("malformed condition '__CUDA_ARCH__ >= (900'"), std::string::npos)
      << found->warnings[0].message;
  bool later = false;
  for (const Finding& f : found->findings) later |= f.line == 3;
  EXPECT_TRUE(later);
}

// The findings round takes what the first read evaluated: a file whose directives exclude nothing
// under the user's macros is not analysed again, yet counts as parsed, and a malformed condition
// of one is still reported.
TEST(Audit, FilesWhoseDirectivesKeepNothingStillCountAndWarn) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / fmt::format("ap-kept-{}", ::getpid());
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "a.cu") << "#if __CUDA_ARCH__ >= 800\nint a;\n#endif\n";
  std::ofstream(dir / "b.cu") << "#if __CUDA_ARCH__ >= (800\nint b;\n#endif\n";
  std::ofstream(dir / "c.cu") << "#if __CUDA_ARCH__ >= 900 && __CUDA_ARCH__ < 1200\nint c;\n#endif\n";
  AuditOptions options;
  options.target = *arch::ParseArch("sm_120");
  options.paths = {dir.string()};
  Result<AuditReport> report = Audit(options);
  ASSERT_TRUE(report.ok()) << report.error().str();
  EXPECT_EQ(report->files_parsed, 3u);
  ASSERT_EQ(report->warnings.size(), 1u);
  EXPECT_EQ(report->warnings[0].where.file, (dir / "b.cu").string());
  ASSERT_EQ(report->findings.size(), 1u);
  EXPECT_EQ(report->findings[0].file, (dir / "c.cu").string());
  std::filesystem::remove_all(dir);
}

// Every input is bounded: a source file over 64 MiB is skipped with its reason (an error of the
// report), and a named file with binary bytes is never read as source.
TEST(Audit, OversizedSourcesAreSkippedAndNamedBinariesAreNotReadAsSource) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / fmt::format("ap-bound-{}", ::getpid());
  std::filesystem::create_directories(dir);
  const std::filesystem::path huge = dir / "huge.cuh", lib = dir / "libk.so", kept = dir / "k.cu";
  std::ofstream(huge) << "#if __CUDA_ARCH__ >= 900\n#endif\n";
  std::filesystem::resize_file(huge, (size_t{64} << 20) + 1);  // sparse: nothing is written
  std::ofstream(lib, std::ios::binary) << std::string(
                                              "\x7f"
                                              "ELF\x02\x01\x01\0\0\0",
                                              10)
                                       << "#if __CUDA_ARCH__ >= 900\n";
  std::ofstream(kept) << "#if __CUDA_ARCH__ >= 900 && __CUDA_ARCH__ < 1200\nint x;\n#endif\n";
  AuditOptions options;
  options.target = *arch::ParseArch("sm_120");
  options.paths = {dir.string(), lib.string()};
  options.jobs = 1;
  Result<AuditReport> report = Audit(options);
  ASSERT_TRUE(report.ok()) << report.error().str();
  ASSERT_EQ(report->errors.size(), 1u);
  EXPECT_EQ(report->errors[0].str(), huge.string() + ": 67108865 bytes is more than a source file may hold (64 MiB)");
  EXPECT_EQ(report->named_binaries, std::vector<std::string>{lib.string()});
  ASSERT_EQ(report->findings.size(), 1u);
  EXPECT_EQ(report->findings[0].file, kept.string());
  std::filesystem::remove_all(dir);
}

// The audit's findings, each as its JSON text (empty when the audit fails, which is reported).
std::vector<std::string> FindingsAsJson(const AuditOptions& options) {
  Result<AuditReport> report = Audit(options);
  EXPECT_TRUE(report.ok()) << report.error().str();
  std::vector<std::string> out;
  for (const Finding& f : report.ok() ? report->findings : std::vector<Finding>{}) out.push_back(ToJson(f).dump());
  return out;
}

// The findings round takes the largest files first and the workers finish in any order: the
// report must not depend on how many there are (the package model reads the modules in the
// walk's order, whichever worker scanned each).
TEST(Audit, TheReportIsTheSameWithAnyNumberOfWorkers) {
  const fs::path root(ARCHPATCH_SOURCE_DIR);
  AuditOptions options;
  options.target = *arch::ParseArch("sm_120");
  options.paths = {(root / "examples/minipkg/site-packages").string(), (root / "tests/fixtures/python").string(),
                   (root / "tests/fixtures/cuda").string()};
  auto findings = [&](int jobs) {
    options.jobs = jobs;
    return FindingsAsJson(options);
  };
  const std::vector<std::string> one = findings(1);
  EXPECT_GT(one.size(), 20u);
  EXPECT_EQ(findings(2), one);
  EXPECT_EQ(findings(7), one);
}

// The package model reads the summaries the scan kept, or scans those modules again when the
// budget for them is spent: the same findings either way.
TEST(Audit, KeptAndRescannedModuleSummariesGiveTheSameReport) {
  const fs::path root(ARCHPATCH_SOURCE_DIR);
  AuditOptions options;
  options.target = *arch::ParseArch("sm_120");
  options.paths = {(root / "examples/minipkg/site-packages").string(), (root / "tests/fixtures/python").string()};
  auto findings = [&](size_t kept_bytes) {
    options.kept_summary_bytes = kept_bytes;
    return FindingsAsJson(options);
  };
  const std::vector<std::string> kept = findings(AuditOptions{}.kept_summary_bytes);
  EXPECT_GT(kept.size(), 10u);
  EXPECT_EQ(findings(0), kept);
  EXPECT_EQ(findings(4096), kept);  // some kept, the rest scanned again
}

// Every file the first read may keep a gate of, lexed ahead of the findings round, or none: the
// same findings (the files of 1 MiB or more an audit lexes ahead go through the same path).
TEST(Audit, FilesLexedAheadGiveTheSameReport) {
  const fs::path root(ARCHPATCH_SOURCE_DIR);
  AuditOptions options;
  options.target = *arch::ParseArch("sm_120");
  options.paths = {(root / "examples").string(), (root / "tests/fixtures").string()};
  options.jobs = 4;
  options.lex_ahead_from = SIZE_MAX;
  const std::vector<std::string> none = FindingsAsJson(options);
  EXPECT_GT(none.size(), 20u);
  options.lex_ahead_from = 0;
  EXPECT_EQ(FindingsAsJson(options), none);
}

}  // namespace
}  // namespace archpatch::scan
