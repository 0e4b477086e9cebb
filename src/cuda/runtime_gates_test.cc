// Runtime capability checks found through libclang's AST, headers unresolved.
#include "cuda/runtime_gates.h"
#include "report/finding.h"

#include <algorithm>
#include <string>

#include <gtest/gtest.h>

namespace archpatch::cuda {
namespace {

std::vector<Finding> Find(const std::string& text) {
  Result<std::vector<Finding>> found = FindRuntimeGates("r.cc", text, arch::AllArches());
  EXPECT_TRUE(found.ok());
  return found.ok() ? *found : std::vector<Finding>{};
}

TEST(RuntimeGates, CheckNamesHoldAWordOfACheckInAnyCase) {
  for (std::string_view name : {"TORCH_CHECK", "TVM_FFI_ICHECK_EQ", "FLASHINFER_CHECK", "check_ok", "static_assert",
                                "CUTE_STATIC_ASSERT_V", "Require", "ensureSupported", "xCHECK", "REQUIRE"}) {
    EXPECT_TRUE(IsCheckName(name)) << name;
  }
  // `assert` is the C library's; CHEC, Ensur: no whole word; a word's first letters alone are none.
  for (std::string_view name : {"assert", "", "CHEC", "Ensur", "cudaGetDeviceProperties", "c", "ASSER_T", "reqUIR"}) {
    EXPECT_FALSE(IsCheckName(name)) << name;
  }
}

TEST(RuntimeGates, UnknownCheckMacroStillYieldsItsArguments) {
  // Neither the header nor TORCH_CHECK exists here: clang's recovery keeps the call's arguments.
  auto f = Find("#include <torch/all.h>\nvoid f(int major) { TORCH_CHECK(major >= 9, \"sm90+\"); }\n");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].text, "major >= 9");
  EXPECT_EQ(ToJson(f[0])["check"], "TORCH_CHECK");
  EXPECT_EQ(f[0].scope, "f");
  EXPECT_EQ(f[0].VerdictFor("sm_90"), Tri::kTrue);
  EXPECT_EQ(f[0].VerdictFor("sm_86"), Tri::kFalse);
}

TEST(RuntimeGates, ConstantsResolveFromEnumsConstexprAndDefines) {
  auto f = Find(
      "enum { kSM_120 = 120 };\nconstexpr int kMax = 100;\n#define MIN_SM 90\n"
      "bool g(int sm) {\n  if (sm == kSM_120) return false;\n  if (sm > kMax || sm < MIN_SM) return false;\n"
      "  return true;\n}\n");
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].VerdictFor("sm_120"), Tri::kFalse);  // refuses exactly sm_120
  EXPECT_EQ(f[0].VerdictFor("sm_121"), Tri::kTrue);
  EXPECT_EQ(f[1].VerdictFor("sm_90"), Tri::kTrue);
  EXPECT_EQ(f[1].VerdictFor("sm_100"), Tri::kTrue);
  EXPECT_EQ(f[1].VerdictFor("sm_103"), Tri::kFalse);
  EXPECT_EQ(f[1].VerdictFor("sm_89"), Tri::kFalse);
}

TEST(RuntimeGates, ScaleComesFromTheComparedNumber) {
  auto f = Find("void h(int arch, int cc) {\n  if (arch < 900) return;\n  if (cc >= 12) throw 1;\n}\n");
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].VerdictFor("sm_90"), Tri::kTrue);  // __CUDA_ARCH__ style: 900
  EXPECT_EQ(f[0].VerdictFor("sm_89"), Tri::kFalse);
  EXPECT_EQ(f[1].VerdictFor("sm_120"), Tri::kFalse);  // a major version: 12
  EXPECT_EQ(f[1].VerdictFor("sm_110"), Tri::kTrue);
}

TEST(RuntimeGates, ComparisonsThatDoNotRefuseAreNotGates) {
  EXPECT_TRUE(Find("void k(int major) { if (major >= 9) { fast(); } int y = major < 8; }\n").empty());
  EXPECT_TRUE(Find("const char* s = \"if (major < 9) return false;\";\n").empty());
}

TEST(RuntimeGates, NamesUsedAsQualifiersTypesOrPathsDoNotHideACheck) {
  // CUTLASS-like: `arch` and `Major` as a namespace, a qualifier, a type and an include path.
  const std::string names =
      "#include <cutlass/arch/mma.h>\nnamespace arch { struct Sm90; }\nusing T = cutlass::arch::Sm90;\n"
      "UMMA::Major major_a = UMMA::Major::K;\n";
  EXPECT_TRUE(Find(names).empty());
  // The same file with a check of its own still yields it, whichever name comes first.
  auto f = Find(names + "void run(int sm) {\n  if (sm != 100) throw 1;\n}\n");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].text, "sm != 100");
  EXPECT_EQ(f[0].line, 6);
  EXPECT_EQ(f[0].VerdictFor("sm_120"), Tri::kFalse);
}

TEST(RuntimeGates, CapabilityNames) {
  for (const char* yes : {"major", "mSM", "sm_version", "smVersion", "getSMVersion", "compute_capability", "cc"}) {
    EXPECT_TRUE(IsCapabilityName(yes)) << yes;
  }
  for (const char* yes : {"getcomputecapability", "get_compute_capability", "m_get_device_capability", "CC_MAJOR"}) {
    EXPECT_TRUE(IsCapabilityName(yes)) << yes;
  }
  // Longer than any name, and a case no needle matches (the byte prefilter would miss it).
  for (const char* no : {"get_compute_capability_of_device", "sM", "mAJOR"}) EXPECT_FALSE(IsCapabilityName(no)) << no;
  for (const char* no : {"smem", "acc", "__CUDA_ARCH__", "kSM_100", "arch_tag", "summary"}) {
    EXPECT_FALSE(IsCapabilityName(no)) << no;
  }
}

// The length and last-letter pre-check must keep every listed name, in every spelling the normal
// form folds (case, '_', an m prefix), and reject near misses only through the set.
TEST(RuntimeGates, CapabilityNamesPreCheckKeepsEveryName) {
  for (std::string_view name : CapabilityNames()) {
    const std::string plain(name);
    std::string upper = plain, spaced;
    for (char& c : upper) c = static_cast<char>(c - 'a' + 'A');
    for (char c : plain) spaced += std::string(1, c) + "_";
    for (const std::string& spelling : {plain, upper, spaced, "m_" + plain, "mSm" + plain.substr(2)}) {
      const bool found = IsCapabilityName(spelling);
      const bool has_needle = std::any_of(CapabilityNeedles().begin(), CapabilityNeedles().end(),
                                          [&](std::string_view n) { return spelling.find(n) != std::string::npos; });
      if (spelling.starts_with("mSm") && !name.starts_with("sm")) continue;
      EXPECT_EQ(found, has_needle) << spelling;
    }
    EXPECT_FALSE(IsCapabilityName(plain + "x")) << plain;
    EXPECT_FALSE(IsCapabilityName(plain.substr(0, plain.size() - 1) + "q")) << plain;
  }
}

}  // namespace
}  // namespace archpatch::cuda
