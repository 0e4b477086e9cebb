// Directive chains from libclang's tokens: what hazard/ and plan/ read (branch ranges, parents,
// effective conditions and verdicts).
#include "cuda/directives.h"

#include <gtest/gtest.h>

namespace archpatch::cuda {
namespace {

DirectiveScan Read(const std::string& text) { return ReadDirectives(Tokenize(text), text, "t.cu"); }

int IndexOf(const std::vector<arch::Arch>& arches, const char* name) {
  for (size_t i = 0; i < arches.size(); ++i) {
    if (arches[i].name() == name) return static_cast<int>(i);
  }
  return -1;
}

TEST(Directives, ChainsNestAndKnowTheirBlocks) {
  const std::string text =
      "#if A\n"      // 1
      "a();\n"       // 2
      "# ifdef B\n"  // 3
      "b();\n"       // 4
      "#endif\n"     // 5
      "#elif C\n"    // 6
      "#else\n"      // 7
      "d();\n"       // 8
      "#endif\n";    // 9
  DirectiveScan scan = Read(text);
  ASSERT_EQ(scan.branches.size(), 4u);
  const DirectiveBranch& first = scan.branches[0];
  EXPECT_EQ(first.first_line, 2);
  EXPECT_EQ(first.last_line, 5);
  EXPECT_EQ(text.substr(first.block.begin, first.block.end - first.block.begin), "a();\n# ifdef B\nb();\n#endif\n");
  EXPECT_EQ(scan.branches[1].kind, DirectiveKind::kIfdef);
  EXPECT_EQ(scan.branches[1].parent, 0);
  EXPECT_EQ(scan.branches[2].previous, 0);
  EXPECT_EQ(scan.branches[3].previous, 2);
  EXPECT_EQ(scan.branches[3].first_line, 8);
  EXPECT_EQ(scan.branches[3].last_line, 8);
  EXPECT_EQ(EffectiveConditionText(scan, 3), "!(C) && !(A)");
  EXPECT_EQ(EffectiveConditionText(scan, 1), "(defined(B)) && (A)");
  EXPECT_TRUE(scan.problems.empty());
}

TEST(Directives, HashesInsideCommentsStringsAndContinuedLinesAreNotDirectives) {
  const std::string text =
      "/* #if X */ // #if Y\n"
      "const char* s = \"#if Z\";\n"
      "auto r = R\"(\n#if W\n)\";\n"
      "int x = 1; \\\n"
      "#if V\n"  // continues the line above: not a directive
      "#if __CUDA_ARCH__ >= 900\n"
      "#endif\n";
  DirectiveScan scan = Read(text);
  ASSERT_EQ(scan.branches.size(), 1u);
  EXPECT_EQ(scan.branches[0].condition, "__CUDA_ARCH__ >= 900");
  EXPECT_EQ(scan.branches[0].line, 8);
}

TEST(Directives, MacroDefinedUnderAnArchBranchIsPerArch) {
  const std::string text =
      "#if __CUDA_ARCH__ >= 900\n"
      "#define HAS_TMA 1\n"
      "#endif\n"
      "#ifdef HAS_TMA\n"
      "#endif\n"
      "#undef HAS_TMA\n"
      "#if defined(HAS_TMA)\n"
      "#endif\n";
  DirectiveScan scan = Read(text);
  ASSERT_EQ(scan.macros.size(), 2u);
  EXPECT_EQ(scan.macros[0].branch, 0);
  const auto& arches = arch::AllArches();
  BranchVerdicts v = EvaluateBranches(scan, arches, MacroEnv{}, "t.cu");
  EXPECT_EQ(v.effective[1][IndexOf(arches, "sm_90")], Tri::kTrue);
  EXPECT_EQ(v.effective[1][IndexOf(arches, "sm_80")], Tri::kFalse);
  EXPECT_TRUE(v.arch_dependent[1]);
  EXPECT_EQ(v.effective[2][IndexOf(arches, "sm_90")], Tri::kFalse);  // #undef applies everywhere
}

TEST(Directives, ElseNegatesEarlierBranchesAndNestingComposes) {
  const std::string text =
      "#if defined(__CUDA_ARCH__)\n"
      "#if __CUDA_ARCH__ >= 1000\n"
      "#elif __CUDA_ARCH__ >= 900\n"
      "#else\n"
      "#endif\n"
      "#endif\n";
  DirectiveScan scan = Read(text);
  const auto& arches = arch::AllArches();
  BranchVerdicts v = EvaluateBranches(scan, arches, MacroEnv{}, "t.cu");
  ASSERT_EQ(scan.branches.size(), 4u);
  EXPECT_EQ(v.effective[2][IndexOf(arches, "sm_90")], Tri::kTrue);
  EXPECT_EQ(v.effective[2][IndexOf(arches, "sm_120")], Tri::kFalse);
  EXPECT_EQ(v.effective[3][IndexOf(arches, "sm_80")], Tri::kTrue);
  EXPECT_EQ(v.effective[3][IndexOf(arches, "sm_90")], Tri::kFalse);
}

// Each distinct condition is parsed once and its value kept per arch until a #define or #undef
// takes effect: the same test before and after one reads the macro as it stands there.
TEST(Directives, ARepeatedConditionIsEvaluatedAgainAfterADefine) {
  const std::string text =
      "#if defined(PKG_TMA)\n"  // 0: before the #define
      "#endif\n"
      "#if __CUDA_ARCH__ >= 900\n"  // 1
      "#define PKG_TMA 1\n"
      "#endif\n"
      "#if defined(PKG_TMA)\n"  // 2: where the #define took effect
      "#endif\n"
      "#if PKG_LEVEL > (2\n"  // 3, 4: the same malformed condition twice
      "#endif\n"
      "#if PKG_LEVEL > (2\n"
      "#endif\n";
  DirectiveScan scan = Read(text);
  const auto& arches = arch::AllArches();
  BranchVerdicts v = EvaluateBranches(scan, arches, MacroEnv{}, "t.cu");
  ASSERT_EQ(scan.branches.size(), 5u);
  EXPECT_EQ(v.effective[0][IndexOf(arches, "sm_90")], Tri::kFalse);
  EXPECT_EQ(v.effective[2][IndexOf(arches, "sm_90")], Tri::kTrue);
  EXPECT_EQ(v.effective[2][IndexOf(arches, "sm_80")], Tri::kFalse);
  ASSERT_EQ(v.malformed.size(), 2u);
  EXPECT_EQ(v.malformed[0].where.line, 8);
  EXPECT_EQ(v.malformed[1].where.line, 10);
  EXPECT_EQ(v.malformed[0].message, v.malformed[1].message);
}

// A condition that reads no arch, package or file macro is evaluated once for every arch; one that
// reads a name standing for an arch macro is still evaluated per arch.
TEST(Directives, OnlyConditionsThatCannotDifferPerArchAreEvaluatedOnce) {
  const std::string text =
      "#if defined(__CUDACC_RTC__) || CUTLASS_FLAG\n"  // 0: the same everywhere
      "#endif\n"
      "#if MYARCH >= 900\n"  // 1: -D MYARCH=__CUDA_ARCH__
      "#endif\n"
      "#if __CUDACC_VER_MAJOR__ >= 12 && PKG_FEATURE\n"  // 2: a package macro
      "#endif\n";
  DirectiveScan scan = Read(text);
  const auto& arches = arch::AllArches();
  MacroEnv env;
  env.defines["MYARCH"] = "__CUDA_ARCH__";
  env.defines["CUTLASS_FLAG"] = "1";
  for (const arch::Arch& a : arches) env.per_arch["PKG_FEATURE"][a.name()] = a.major >= 10 ? Tri::kTrue : Tri::kFalse;
  BranchVerdicts v = EvaluateBranches(scan, arches, env, "t.cu");
  ASSERT_EQ(scan.branches.size(), 3u);
  for (size_t a = 0; a < arches.size(); ++a) EXPECT_EQ(v.own[0][a], Tri::kTrue) << arches[a].name();
  EXPECT_EQ(v.own[1][IndexOf(arches, "sm_90")], Tri::kTrue);
  EXPECT_EQ(v.own[1][IndexOf(arches, "sm_80")], Tri::kFalse);
  EXPECT_EQ(v.own[2][IndexOf(arches, "sm_100")], Tri::kTrue);
  EXPECT_EQ(v.own[2][IndexOf(arches, "sm_90")], Tri::kFalse);
}

// The rounds of package macros read only where each #define takes effect: those branches'
// verdicts are EvaluateOwnBranches', the others' unknown, and no other condition is parsed.
TEST(Directives, MacroBranchesGiveTheVerdictsOfTheDefinitions) {
  const std::string text =
      "#if __CUDA_ARCH__ >= 1000\n"   // 0: an earlier branch of the defining chain
      "#elif __CUDA_ARCH__ >= 900\n"  // 1
      "#  if defined(PKG_SPARSE)\n"   // 2: holds the #define
      "#    define PKG_SM90_SPARSE 1\n"
      "#  endif\n"
      "#endif\n"
      "#if __CUDA_ARCH__ >= (800\n"  // 3: malformed, holds no macro
      "#endif\n"
      "#if defined(PKG_SM90_SPARSE)\n"  // 4: holds no macro
      "#endif\n";
  DirectiveScan scan = Read(text);
  const auto& arches = arch::AllArches();
  MacroEnv env;
  env.defines["PKG_SPARSE"] = "1";
  BranchVerdicts all = EvaluateOwnBranches(scan, arches, env, "t.cu");
  BranchVerdicts macros = EvaluateMacroBranches(scan, arches, env, "t.cu");
  for (int b : {0, 1, 2}) EXPECT_EQ(macros.effective[b], all.effective[b]) << "branch " << b;
  EXPECT_EQ(macros.effective[2][IndexOf(arches, "sm_90")], Tri::kTrue);
  EXPECT_EQ(macros.effective[2][IndexOf(arches, "sm_100")], Tri::kFalse);
  EXPECT_EQ(macros.effective[4][IndexOf(arches, "sm_90")], Tri::kUnknown);
  EXPECT_EQ(all.malformed.size(), 1u);
  EXPECT_TRUE(macros.malformed.empty());
}

TEST(Directives, UnbalancedDirectivesAreProblemsWithPlaces) {
  DirectiveScan scan = Read("#else\n#if A\n");
  ASSERT_EQ(scan.problems.size(), 2u);
  EXPECT_EQ(scan.problems[0].str(), "t.cu:1:1: '#else' without '#if'");
  EXPECT_EQ(scan.problems[1].str(), "t.cu:2:1: '#if' is not closed by '#endif'");
  EXPECT_FALSE(scan.branches[0].terminated);
}

}  // namespace
}  // namespace archpatch::cuda
