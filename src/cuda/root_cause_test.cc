// Root causes over findings as the audit produces them: a #define block and the gates that test
// its macro, in one file and across files, and the widen verdict over what the block enables.
#include "cuda/root_cause.h"

#include <gtest/gtest.h>

namespace archpatch::cuda {
namespace {

Finding Gate(std::string file, int line, std::string effective, std::string klass, std::string holds = "code") {
  Finding f;
  f.file = std::move(file);
  f.line = line;
  f.column = 5;
  f.kind = gate::Kind::kCudaGate;
  f.text = effective;
  f.span = {static_cast<size_t>(line) * 100, static_cast<size_t>(line) * 100 + 10};
  f.verdict = {{"sm_120", Tri::kFalse}, {"sm_90a", Tri::kTrue}};
  f.form = gate::DirectiveForm{gate::DirectiveKind::kIf, 0, effective};
  f.block = gate::Block{};
  f.block->bytes = {static_cast<size_t>(line) * 100 + 20, static_cast<size_t>(line) * 100 + 90};
  f.block->holds = holds == "defines" ? gate::BlockHolds::kDefines : gate::BlockHolds::kCode;
  f.exclusion =
      gate::Classification{ExclusionClassFromName(klass), "reason of line " + std::to_string(line), std::nullopt};
  f.widen = gate::WidenHazard{};
  f.widen->target = "sm_120";
  return f;
}

Finding Definer(std::string file, int line, std::string effective, std::string macro) {
  Finding f = Gate(std::move(file), line, std::move(effective), "other-arch", "defines");
  f.block->defines = {macro};
  return f;
}

void NeedsWgmma(Finding& f) {
  f.widen->safety = gate::WidenSafety::kUnsafe;
  f.widen->needs = {gate::FeatureUse{"wgmma", "Hopper warpgroup MMA", "", 0, "", {}, ""}};
}

TEST(RootCause, TestedMacrosSkipCompilerMacros) {
  Finding f = Gate("a.hpp", 3, "(defined(CUTE_ARCH_MMA_SM90A_ENABLED)) && !(__CUDA_ARCH__ >= 1000)", "refusal");
  EXPECT_EQ(TestedMacros(f), std::vector<std::string>{"CUTE_ARCH_MMA_SM90A_ENABLED"});
}

// CUTLASS's mma_sm90 pattern: a #define block on __CUDA_ARCH_FEAT_SM90_ALL, two gates on its macro.
void AddSm90DefineAndUsers(std::vector<Finding>& findings) {
  findings.push_back(Definer("mma.hpp", 38, "(defined(__CUDA_ARCH_FEAT_SM90_ALL))", "SM90A_ENABLED"));
  findings.push_back(Gate("mma.hpp", 51, "(defined(SM90A_ENABLED))", "refusal"));
  findings.push_back(Gate("mma.hpp", 65, "(defined(SM90A_ENABLED))", "refusal"));
}

TEST(RootCause, GatesOnADefinedMacroFoldIntoTheDefineAndInheritItsHazards) {
  std::vector<Finding> findings;
  AddSm90DefineAndUsers(findings);
  findings.push_back(Gate("other.hpp", 10, "(__CUDA_ARCH__ >= 900 && __CUDA_ARCH__ < 1200)", "fast-path"));
  NeedsWgmma(findings[1]);
  NeedsWgmma(findings[2]);
  AssignClasses(findings);
  std::vector<RootCause> roots = CollectRootCauses(findings);
  ASSERT_EQ(roots.size(), 2u);
  EXPECT_EQ(roots[0].root, 0u);
  EXPECT_EQ(roots[0].places, (std::vector<size_t>{1, 2}));
  EXPECT_EQ(roots[0].klass, ExclusionClass::kHardwareExclusive);
  EXPECT_EQ(roots[0].widen.verdict, gate::WidenSafety::kUnsafe);
  ASSERT_EQ(roots[0].widen.reasons.size(), 1u);
  EXPECT_NE(roots[0].widen.reasons[0].find("enables 2 blocks that use wgmma"), std::string::npos);
  EXPECT_NE(roots[0].widen.reasons[0].find("mma.hpp:51"), std::string::npos);
  EXPECT_EQ(roots[1].klass, ExclusionClass::kFastPath);
  EXPECT_EQ(roots[1].widen.verdict, gate::WidenSafety::kSafe);
}

// FlashInfer's `#if ... defined(__CUDA_ARCH_FEAT_SM120_ALL)` block of cvt.rp.satfinite.ue8m0x2:
// sm_120 lacks the instruction and sm_120a has it, so the root cause says which build would run
// it; one that also enables a block sm_120a lacks (wgmma) says nothing of the variant.
TEST(RootCause, AHardwareRootCauseNamesTheVariantThatHasAllItsBlocksNeed) {
  std::vector<Finding> findings = {Gate("ln.cuh", 291, "(defined(__CUDA_ARCH_FEAT_SM120_ALL))", "fast-path")};
  AddSm90DefineAndUsers(findings);
  findings[0].widen->safety = gate::WidenSafety::kUnsafe;
  findings[0].widen->needs = {gate::FeatureUse{"cvt.e2m1", "hardware FP4 conversions", "", 0, "", {}, ""}};
  findings[0].widen->available_on_variant = "sm_120a";
  findings[2].widen->safety = gate::WidenSafety::kUnsafe;
  findings[2].widen->needs = {gate::FeatureUse{"setmaxnreg", "register reallocation", "", 0, "", {}, ""}};
  findings[2].widen->available_on_variant = "sm_120a";
  NeedsWgmma(findings[3]);
  AssignClasses(findings);
  std::vector<RootCause> roots = CollectRootCauses(findings);
  ASSERT_EQ(roots.size(), 2u);
  EXPECT_EQ(roots[0].root, 0u);
  EXPECT_EQ(roots[0].klass, ExclusionClass::kHardwareExclusive);
  EXPECT_EQ(roots[0].widen.available_on_variant, "sm_120a");
  EXPECT_EQ(roots[0].reason, "needs cvt.e2m1, which sm_120 lacks (sm_120a has it)");
  EXPECT_EQ(roots[1].root, 1u);
  EXPECT_EQ(roots[1].widen.features, (std::vector<std::string>{"setmaxnreg", "wgmma"}));
  EXPECT_EQ(roots[1].widen.available_on_variant, "");  // the wgmma block would not run on sm_120a
  EXPECT_EQ(roots[1].reason, "needs setmaxnreg, wgmma, which sm_120 lacks");
}

TEST(RootCause, DefinesAcrossFilesAndTransitively) {
  std::vector<Finding> findings = {
      Definer("config.hpp", 5, "(defined(__CUDA_ARCH_FEAT_SM100_ALL))", "TCGEN05_ENABLED"),
      Definer("derived.hpp", 7, "(defined(TCGEN05_ENABLED))", "TMEM_ALLOC_ENABLED"),
      Gate("use.hpp", 20, "(defined(TMEM_ALLOC_ENABLED))", "empty"),
  };
  std::vector<size_t> root = LinkRootCauses(findings);
  EXPECT_EQ(root, (std::vector<size_t>{0, 0, 0}));
  std::vector<RootCause> roots = CollectRootCauses(findings);
  ASSERT_EQ(roots.size(), 1u);
  EXPECT_EQ(roots[0].klass, ExclusionClass::kEmpty);  // the define block's class comes from what it switches off
  EXPECT_NE(roots[0].reason.find("use.hpp:20"), std::string::npos);
}

TEST(RootCause, AnEmptyKernelBelongsToTheGateThatEmptiesIt) {
  Finding emptying = Gate("k.cuh", 13, "(__CUDA_ARCH__ >= 1000 && __CUDA_ARCH__ < 1200)", "empty");
  emptying.form = gate::DirectiveForm{gate::DirectiveKind::kIf, 13, emptying.directive()->effective};
  Finding kernel;
  kernel.file = "k.cuh";
  kernel.line = 10;
  kernel.kind = gate::Kind::kEmptyKernel;
  kernel.empty_kernel = gate::EmptyKernel{};
  kernel.empty_kernel->gates = {gate::KernelGate{13, "if", "", std::nullopt}};
  std::vector<Finding> findings = {kernel, emptying};
  EXPECT_EQ(LinkRootCauses(findings), (std::vector<size_t>{1, 1}));
}

TEST(RootCause, AnIncludeGuardIsNotItsOwnCause) {
  std::vector<Finding> findings = {Definer("g.hpp", 1, "!(defined(G_H))", "G_H")};
  EXPECT_EQ(LinkRootCauses(findings), std::vector<size_t>{0});
}

TEST(RootCause, VerdictClassesForGatesWithoutABlock) {
  Finding table;
  table.kind = gate::Kind::kPythonGate;
  table.form = gate::PythonForm{};
  table.verdict = {{"sm_120", Tri::kFalse}, {"sm_75", Tri::kTrue}, {"sm_90", Tri::kFalse}};
  Finding check = table;
  check.kind = gate::Kind::kCppRuntimeGate;
  check.form = gate::RuntimeForm{"check-macro", ""};
  Finding several = table;
  several.verdict = {{"sm_120", Tri::kFalse}, {"sm_90", Tri::kTrue}, {"sm_100", Tri::kTrue}, {"sm_121", Tri::kFalse}};
  Finding old = table;
  old.verdict = {{"sm_120", Tri::kFalse}, {"sm_80", Tri::kTrue}, {"sm_90", Tri::kTrue}, {"sm_100", Tri::kFalse}};
  Finding fallback = old;
  std::get<gate::PythonForm>(fallback.form).shape = "comparison";
  std::get<gate::PythonForm>(fallback.form).op = "<";
  Finding flags = table;
  std::get<gate::PythonForm>(flags.form).shape = "nvcc-arch-flag";
  flags.verdict = several.verdict;
  std::vector<Finding> findings = {table, check, several, old, fallback, flags};
  AssignClasses(findings);
  EXPECT_EQ(ClassOf(findings[4]), ExclusionClass::kLegacy);     // `if sm_version < 90: return 1`
  EXPECT_EQ(ClassOf(findings[5]), ExclusionClass::kOtherArch);  // a module-level flag table
  EXPECT_EQ(ClassOf(findings[0]), ExclusionClass::kOtherArch);  // an arch -> name table entry
  EXPECT_EQ(ClassOf(findings[1]), ExclusionClass::kRefusal);    // one chip passes, the target is refused
  EXPECT_EQ(ClassOf(findings[2]), ExclusionClass::kRefusal);
  EXPECT_EQ(ClassOf(findings[3]), ExclusionClass::kRefusal);  // without a chain, older arches passing is no fallback
}

}  // namespace
}  // namespace archpatch::cuda
