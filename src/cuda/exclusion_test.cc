// Exclusion classes on the shapes real trees use (CUTLASS, FlashInfer, TensorRT-LLM kernels),
// each written fresh: which branch sm_120 takes and what it holds decides the class.
#include "cuda/exclusion.h"

#include <gtest/gtest.h>

namespace archpatch::cuda {
namespace {

struct Scanned {
  std::string text;
  std::vector<Token> tokens;
  DirectiveScan scan;
  BranchVerdicts verdicts;
  std::vector<BlockHolds> holds;
  std::vector<arch::Arch> arches;
};

// sm_120 first (the target), then the rest of the table, as the audit orders them.
std::vector<arch::Arch> TargetFirst() {
  std::vector<arch::Arch> arches = {*arch::ParseArch("sm_120")};
  for (const arch::Arch& a : arch::AllArches()) {
    if (a != arches.front()) arches.push_back(a);
  }
  return arches;
}

Scanned Scan(std::string text) {
  Scanned s;
  s.text = std::move(text);
  s.tokens = Tokenize(s.text);
  s.scan = ReadDirectives(s.tokens, s.text, "t.cu");
  s.arches = TargetFirst();
  MacroEnv env;
  env.undef_unknown = true;
  s.verdicts = EvaluateBranches(s.scan, s.arches, env, "t.cu");
  s.holds = AllBlockHolds(s.scan, s.tokens, s.text);
  return s;
}

Exclusion Classify(const Scanned& s, int branch) {
  return ClassifyExclusion(s.scan, s.verdicts, s.holds, branch, s.arches);
}

TEST(Exclusion, OlderFallbackWhileTargetTakesMainPathIsLegacy) {
  Scanned s = Scan(
      "#if __CUDA_ARCH__ < 800\n"
      "  slow_path();\n"
      "#else\n"
      "  fast_path();\n"
      "#endif\n");
  Exclusion e = Classify(s, 0);
  EXPECT_EQ(e.klass, ExclusionClass::kLegacy) << e.reason;
  EXPECT_FALSE(KeepsTargetOut(e.klass));
  EXPECT_EQ(e.target.branch, 1);
  EXPECT_EQ(e.target.holds, BlockHolds::kCode);
}

TEST(Exclusion, OneOtherChipsWorkaroundIsNotAnExclusion) {
  Scanned s = Scan(
      "#if __CUDA_ARCH__ == 1210\n"
      "  spark_workaround();\n"
      "#endif\n");
  Exclusion e = Classify(s, 0);
  EXPECT_EQ(e.klass, ExclusionClass::kOtherArch) << e.reason;
  EXPECT_NE(e.reason.find("sm_121"), std::string::npos);
}

TEST(Exclusion, NotFeatErrorElseWholeBodyIsARefusal) {
  Scanned s = Scan(
      "__global__ void k() {\n"
      "#if !defined(__CUDA_ARCH_FEAT_SM90_ALL)\n"
      "  printf(\"ERROR : Arch conditional MMA instruction used without targeting sm90a. Aborting.\\n\");\n"
      "#else\n"
      "  int x = compute();\n"
      "  store(x);\n"
      "#endif\n"
      "}\n");
  EXPECT_EQ(s.holds[0], BlockHolds::kRefusal);
  Exclusion e = Classify(s, 1);
  EXPECT_EQ(e.klass, ExclusionClass::kRefusal) << e.reason;
  EXPECT_EQ(e.target.branch, 0);
}

TEST(Exclusion, HashErrorAndInvalidControlPathRefuse) {
  Scanned s = Scan(
      "#if __CUDA_ARCH__ >= 900 && __CUDA_ARCH__ < 1200\n"
      "  asm volatile(\"fence;\");\n"
      "#else\n"
      "  CUTE_INVALID_CONTROL_PATH(\"Attempting to use X without SM90\");\n"
      "#endif\n"
      "#if __CUDA_ARCH__ >= 1000 && __CUDA_ARCH__ < 1200\n"
      "  a();\n"
      "#else\n"
      "#error \"needs sm_100\"\n"
      "#endif\n");
  EXPECT_EQ(Classify(s, 0).klass, ExclusionClass::kRefusal);
  EXPECT_EQ(Classify(s, 2).klass, ExclusionClass::kRefusal);
}

TEST(Exclusion, GenericElseForTargetIsAFastPath) {
  Scanned s = Scan(
      "#if __CUDA_ARCH__ >= 900 && __CUDA_ARCH__ < 1200\n"
      "  specialised();\n"
      "#else\n"
      "  generic();\n"
      "#endif\n");
  EXPECT_EQ(Classify(s, 0).klass, ExclusionClass::kFastPath);
}

TEST(Exclusion, OlderArchesOnlyWithNothingForTheTargetIsEmptyNotLegacy) {
  // FlashInfer's lamport kernel: the whole body under >= 1000 && < 1200, no #else.
  Scanned s = Scan(
      "#if (defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 1000) && (__CUDA_ARCH__ < 1200))\n"
      "  body();\n"
      "#endif\n");
  EXPECT_EQ(Classify(s, 0).klass, ExclusionClass::kEmpty);
}

TEST(Exclusion, AnOlderArchTweakInsideAFunctionIsLegacyAWholeBodyIsNot) {
  // DeepGEMM's scheduler: an sm90-only fix-up amid code every arch runs.
  Scanned part = Scan(
      "void f() {\n"
      "  a();\n"
      "#if __CUDA_ARCH__ < 1000\n"
      "  fixup();\n"
      "#endif\n"
      "  b();\n"
      "}\n");
  EXPECT_FALSE(ChainFillsItsBraces(part.scan, 0, part.tokens, part.text));
  EXPECT_EQ(ClassifyExclusion(part.scan, part.verdicts, part.holds, 0, part.arches, 0, false).klass,
            ExclusionClass::kLegacy);
  Scanned window = Scan(  // FlashInfer's PDL call: a window with a floor, not a fallback
      "void h() {\n"
      "  a();\n"
      "#if (defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 900) && (__CUDA_ARCH__ < 1200))\n"
      "  cudaGridDependencySynchronize();\n"
      "#endif\n"
      "  b();\n"
      "}\n");
  EXPECT_EQ(ClassifyExclusion(window.scan, window.verdicts, window.holds, 0, window.arches, 0, false).klass,
            ExclusionClass::kFastPath);
  Scanned whole = Scan(
      "void g() {\n"
      "#if __CUDA_ARCH__ >= 800 && __CUDA_ARCH__ <= 890 // body\n"
      "  run();\n"
      "#endif\n"
      "}\n");
  EXPECT_TRUE(ChainFillsItsBraces(whole.scan, 0, whole.tokens, whole.text));
  EXPECT_EQ(ClassifyExclusion(whole.scan, whole.verdicts, whole.holds, 0, whole.arches, 0, true).klass,
            ExclusionClass::kEmpty);
}

TEST(Exclusion, NothingInPlaceIsEmpty) {
  Scanned s = Scan(
      "#if __CUDA_ARCH__ >= 900 && __CUDA_ARCH__ < 1200\n"
      "  body();\n"
      "#endif\n");
  Exclusion e = Classify(s, 0);
  EXPECT_EQ(e.klass, ExclusionClass::kEmpty);
  EXPECT_EQ(e.target.branch, -1);
}

TEST(Exclusion, ARefusalTheTargetAvoidsIsNotAnExclusion) {
  Scanned s = Scan(
      "#if __CUDA_ARCH__ < 800\n"
      "#error \"needs sm_80\"\n"
      "#endif\n");
  EXPECT_EQ(Classify(s, 0).klass, ExclusionClass::kOtherArch);
}

TEST(Exclusion, DefineBlocksAndLongBodiesAreToldApart) {
  Scanned s = Scan(
      "#if defined(__CUDA_ARCH_FEAT_SM90_ALL)\n"
      "#  define MMA_SM90A_ENABLED\n"
      "#endif\n"
      "#if __CUDA_ARCH__ >= 900\n"
      "// only a comment\n"
      "#endif\n");
  EXPECT_EQ(s.holds[0], BlockHolds::kDefines);
  EXPECT_EQ(s.holds[1], BlockHolds::kNothing);
  std::string body = "#if X\n";
  for (int i = 0; i < 40; ++i) body += "  step(" + std::to_string(i) + ");\n";
  body += "  throw err;\n#endif\n";
  EXPECT_EQ(Scan(body).holds[0], BlockHolds::kCode);  // a kernel body that throws somewhere
  // CUTLASS's cp_async: a short block whose static_assert message says "not supported".
  EXPECT_EQ(Scan("#if X\n  static_assert(N == 4 || N == 8, \"Size is not supported\");\n  copy();\n#endif\n").holds[0],
            BlockHolds::kCode);
}

TEST(Exclusion, ClassNamesRoundTrip) {
  for (ExclusionClass c : {ExclusionClass::kRefusal, ExclusionClass::kEmpty, ExclusionClass::kFastPath,
                           ExclusionClass::kHardwareExclusive, ExclusionClass::kLegacy, ExclusionClass::kOtherArch}) {
    EXPECT_EQ(ExclusionClassFromName(ExclusionClassName(c)), c);
  }
}

}  // namespace
}  // namespace archpatch::cuda
