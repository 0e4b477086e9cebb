#include "suggest/edits.h"

#include <gtest/gtest.h>

namespace archpatch::suggest {
namespace {

arch::Arch Sm120() { return *arch::ParseArch("sm_120"); }

Candidate Root(std::string kind, std::string text, std::string scope, size_t at) {
  Candidate c;
  c.group = "G1";
  c.kind = std::move(kind);
  c.text = std::move(text);
  c.scope = std::move(scope);
  c.span_begin = at;
  return c;
}

Candidate CudaRoot(std::string_view contents, std::string text, std::string scope) {
  Candidate c = Root("cuda-gate", text, std::move(scope), contents.find(text));
  c.form = "directive";
  c.directive = "if";
  return c;
}

const char* kKernel =
    "__global__ void norm_kernel(float* x) {\n"
    "#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 900) && (__CUDA_ARCH__ < 1200)\n"
    "  x[0] = 1.f;\n"
    "#endif\n"
    "}\n"
    "__global__ void other_kernel(float* x) {\n"
    "#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 900) && (__CUDA_ARCH__ < 1200)\n"
    "  x[0] = 2.f;\n"
    "#endif\n"
    "}\n";

TEST(EditFor, ACudaGateGetsItsMacroItsScopeAndDropBound) {
  const std::string_view contents = kKernel;
  const Candidate c =
      CudaRoot(contents, "defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 900) && (__CUDA_ARCH__ < 1200)", "norm_kernel");
  Result<ChosenEdit> e = EditFor(c, "demo/k.cuh", contents, Sm120());
  ASSERT_TRUE(e) << e.error().str();
  const auto& gate = std::get<rules::CudaGate>(e->edit.action);
  EXPECT_EQ(gate.macro, "__CUDA_ARCH__");
  EXPECT_EQ(gate.scope, "norm_kernel");
  EXPECT_EQ(gate.strategy, rules::Strategy::kDropBound);
  EXPECT_EQ(e->edit.expect, 1) << "the scope keeps other_kernel's gate out";
  ASSERT_EQ(e->places.size(), 1u);
  EXPECT_EQ(e->places[0].after, "defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 900)");
}

TEST(EditFor, AnEqualityGetsOrTarget) {
  const std::string contents = "void f() {\n#if __CUDA_ARCH__ == 900\n  g();\n#endif\n}\n";
  Result<ChosenEdit> e = EditFor(CudaRoot(contents, "__CUDA_ARCH__ == 900", "f"), "demo/k.cuh", contents, Sm120());
  ASSERT_TRUE(e) << e.error().str();
  EXPECT_EQ(std::get<rules::CudaGate>(e->edit.action).strategy, rules::Strategy::kOrTarget);
  EXPECT_NE(e->places[0].after.find("1200"), std::string::npos) << e->places[0].after;
}

TEST(EditFor, RefusesAnArchSpecificFeatureMacro) {
  const std::string contents = "void f() {\n#if defined(__CUDA_ARCH_FEAT_SM90_ALL)\n  wgmma();\n#endif\n}\n";
  Result<ChosenEdit> e =
      EditFor(CudaRoot(contents, "defined(__CUDA_ARCH_FEAT_SM90_ALL)", "f"), "demo/k.cuh", contents, Sm120());
  ASSERT_FALSE(e);
  EXPECT_NE(
      e.error().message.find("'__CUDA_ARCH_FEAT_SM90_ALL', defined only when compiling for an arch-specific target"),
      std::string::npos)
      << e.error().message;
}

TEST(EditFor, APythonListGetsScopeNameAndTheAddFormOfItsOperand) {
  const std::string contents =
      "def gen_norm_module():\n    return spec(supported_major_versions=[9, 10])\n\n\n"
      "@supported_compute_capability([100, 103])\ndef _cutlass_requirement(a):\n    return True\n";
  Candidate majors =
      Root("python-gate", "supported_major_versions=[9, 10]", "gen_norm_module", contents.find("[9, 10]"));
  majors.name = "supported_major_versions";
  majors.operand = "major";
  Result<ChosenEdit> e = EditFor(majors, "demo/jit.py", contents, Sm120());
  ASSERT_TRUE(e) << e.error().str();
  const auto& gate = std::get<rules::PythonGate>(e->edit.action);
  EXPECT_EQ(gate.scope, "gen_norm_module");
  EXPECT_EQ(gate.name, "supported_major_versions");
  EXPECT_EQ(gate.add, rules::AddForm::kMajor);
  EXPECT_EQ(e->places[0].after, "[9, 10, 12]");

  Candidate caps = Root("python-gate", "supported_compute_capability([100, 103])", "_cutlass_requirement",
                        contents.find("[100, 103]"));
  caps.name = "supported_compute_capability";
  caps.operand = "compute_capability";
  Result<ChosenEdit> c = EditFor(caps, "demo/jit.py", contents, Sm120());
  ASSERT_TRUE(c) << c.error().str();
  EXPECT_EQ(std::get<rules::PythonGate>(c->edit.action).add, rules::AddForm::kCapability);
  EXPECT_EQ(c->places[0].after, "[100, 103, 120]");
}

TEST(EditFor, WritesNoEditForARuntimeCheck) {
  Result<ChosenEdit> e = EditFor(Root("cpp-runtime-gate", "major == 10", "init", 0), "demo/a.cu", "", Sm120());
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().message.find("write a replace edit by hand"), std::string::npos);
}

}  // namespace
}  // namespace archpatch::suggest
