// Runtime capability checks read from the file's tokens, headers unresolved.
#include "cuda/runtime_gates.h"
#include "cuda/tokens.h"
#include "report/finding.h"

#include <algorithm>
#include <string>

#include <gtest/gtest.h>

namespace archpatch::cuda {
namespace {

std::vector<Finding> Find(const std::string& text) { return FindRuntimeGates("r.cc", text, arch::AllArches()); }

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

TEST(RuntimeGates, RefusalsAndCheckMacrosAreFound) {
  for (const std::string text : {
           // a throw after logging, in a block
           "void Init(const cudaDeviceProp& props) {\n  if (props.major < 9) {\n    LOG_WARNING(\"old GPU\");\n"
           "    throw std::runtime_error(\"needs sm90\");\n  }\n}\n",
           // a predicate's early return
           "bool IsSupported(int major) {\n  if (major < 9) return false;\n  return true;\n}\n",
           "void Run(int major) { TVM_FFI_ICHECK_EQ(major, 10) << \"sm100 only\"; }\n",
           "void Run(int sm) { for (int k : {1, 2}) { if (sm < 90) continue; go(k); } }\n",
       }) {
    auto f = Find(text);
    ASSERT_EQ(f.size(), 1u) << text;
    EXPECT_EQ(f[0].VerdictFor("sm_89"), Tri::kFalse) << text;
  }
}

TEST(RuntimeGates, CheckBuiltByAMacroOfTheFileIsReadThroughItsExpansion) {
  // As a compiler reads it: the `if` comes from the macro's body, and the check stands at the call.
  auto f = Find(
      "#define RETURN_FALSE_UNLESS(cond) if (!(cond)) return false\n"
      "#define REQUIRE_SM(v, why) TORCH_CHECK(getSMVersion() >= v, #why)\n"
      "bool SupportsFp8(int major) {\n  RETURN_FALSE_UNLESS(major >= 9);\n  REQUIRE_SM(100, needs Blackwell);\n"
      "  return true;\n}\n");
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].text, "RETURN_FALSE_UNLESS(major >= 9)");
  EXPECT_EQ(f[0].line, 4);
  EXPECT_EQ(f[0].column, 3);
  EXPECT_EQ(f[0].scope, "SupportsFp8");
  EXPECT_EQ(f[0].VerdictFor("sm_90"), Tri::kTrue);
  EXPECT_EQ(f[0].VerdictFor("sm_89"), Tri::kFalse);
  EXPECT_EQ(f[1].text, "REQUIRE_SM(100, needs Blackwell)");
  EXPECT_EQ(ToJson(f[1])["check"], "TORCH_CHECK");
  EXPECT_EQ(f[1].VerdictFor("sm_100"), Tri::kTrue);
  EXPECT_EQ(f[1].VerdictFor("sm_90"), Tri::kFalse);
  // An expansion past the bound is not read (a body naming a long argument many times), and the
  // expansions of a file add up to at most twice its size (plus one bound): the first calls are
  // read, the last are not.
  std::string body = "#define GUARD_ALL(c) if (!(c";
  for (int k = 0; k < 64; ++k) body += " && c";
  body += ")) return false\n";
  EXPECT_TRUE(
      Find(body + "bool f(int major) {\n  GUARD_ALL(major >= 9 && " + std::string(2000, '1') + ");\n}\n").empty());
  std::string calls = body + "bool f(int major) {\n";
  for (int k = 0; k < 400; ++k) calls += "  GUARD_ALL(major >= 9 && " + std::string(20, '1') + ");\n";
  const auto capped = Find(calls + "}\n");
  ASSERT_FALSE(capped.empty());
  EXPECT_EQ(capped.front().line, 3);
  EXPECT_EQ(capped.front().text, "GUARD_ALL(major >= 9 && " + std::string(20, '1') + ")");
  EXPECT_LT(capped.size(), 400u);
  // A macro that builds no check, and a pasting one, are not expanded.
  EXPECT_TRUE(Find("#define TWICE(x) ((x) * 2)\nint f(int major) { return TWICE(major); }\n").empty());
  EXPECT_TRUE(Find("#define GUARD(n) if (major < n##0) return\nvoid f(int major) { GUARD(9); }\n").empty());
}

TEST(RuntimeGates, AnObjectOfACheckingTypeBuiltFromTheConditionIsACheck) {
  for (const std::string text : {
           "struct ArchRequirement { ArchRequirement(bool); };\nvoid Pick(int major) { ArchRequirement{major >= 9}; "
           "}\n",
           "struct ArchRequirement { ArchRequirement(bool); };\n"
           "void Pick(int major) { ArchRequirement req{major >= 9}; }\n",
       }) {
    auto f = Find(text);
    ASSERT_EQ(f.size(), 1u) << text;
    EXPECT_EQ(f[0].text, "major >= 9");
    EXPECT_EQ(ToJson(f[0])["check"], "ArchRequirement");
    EXPECT_EQ(f[0].VerdictFor("sm_89"), Tri::kFalse);
  }
  // A string that names a check does not make an object one; a class body is no construction.
  EXPECT_TRUE(Find("struct Reason { Reason(const char*, bool); };\n"
                   "void Pick(int major) { Reason r{\"check\", major >= 9}; }\n")
                  .empty());
  EXPECT_TRUE(Find("struct Require { int major = 9; bool ok() const { return major >= 9; } };\n").empty());
}

TEST(RuntimeGates, AFunctionsConstantsAreSeenOnlyInsideIt) {
  // DeepGEMM's form: `constexpr int block_kv = 256;` in one function, a parameter of the same name
  // checked in another; only the function that declares the constant reads it.
  auto f = Find(
      "void a(int arch_major) {\n  constexpr int block_kv = 256;\n  go(block_kv);\n}\n"
      "void b(int arch_major, int block_kv) {\n"
      "  DG_HOST_ASSERT((arch_major == 10 and (block_kv == 32 or block_kv == 64)) or\n"
      "                 (arch_major == 9 and block_kv == 64));\n}\n"
      "void c(int arch_major) {\n  constexpr int kMinMajor = 9;\n  DG_HOST_ASSERT(arch_major >= kMinMajor);\n}\n");
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].line, 6);
  EXPECT_EQ(f[0].VerdictFor("sm_120"), Tri::kFalse);  // block_kv unknown: the arch decides
  EXPECT_EQ(f[0].VerdictFor("sm_100"), Tri::kUnknown);
  EXPECT_EQ(f[1].line, 11);
  EXPECT_EQ(f[1].VerdictFor("sm_90"), Tri::kTrue);
  EXPECT_EQ(f[1].VerdictFor("sm_80"), Tri::kFalse);
  ASSERT_EQ(f[1].via.size(), 1u);
  EXPECT_EQ(f[1].via[0].line, 10);
}

TEST(RuntimeGates, AConstructorsCheckIsInTheConstructorNotItsLastInitializer) {
  // TensorRT-LLM's CutlassGemmConfig: member initializers between the parameters and the body.
  for (const std::string init : {"is_tma_warp_specialized(true)", "is_tma_warp_specialized{true}"}) {
    auto f = Find(
        "struct CutlassGemmConfig {\n  CutlassGemmConfig(int sm_version) noexcept\n"
        "      : sm_version(sm_version), " +
        init +
        " {\n    TLLM_CHECK_WITH_INFO(sm_version >= 100 && sm_version < 120, \"Expected SM 10x\");\n"
        "  }\n  int sm_version;\n  bool is_tma_warp_specialized;\n};\n");
    ASSERT_EQ(f.size(), 1u) << init;
    EXPECT_EQ(f[0].scope, "CutlassGemmConfig") << init;
    EXPECT_EQ(f[0].VerdictFor("sm_120"), Tri::kFalse);
  }
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

// CUTLASS's mma_sm90_gmma.hpp: `Major` names only an enum it declares and the qualifiers of its
// enumerators, so the file's runtime pass is skipped; a value of the same name still takes it.
TEST(RuntimeGates, TheNameATypeDeclaresIsNoValue) {
  for (const char* text : {"namespace GMMA { enum class Major { K = 0, MN = 1 }; }\nauto k = GMMA::Major::K;\n",
                           "struct arch {};\nclass Major;\nunion sm { int x; };\nenum cc : int { kA };\n"}) {
    EXPECT_FALSE(NamesCapabilityValue(Tokenize(text), text)) << text;
  }
  const std::string with_value = "enum class Major { K };\nbool ok(int major) { return major >= 9; }\n";
  EXPECT_TRUE(NamesCapabilityValue(Tokenize(with_value), with_value));
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
