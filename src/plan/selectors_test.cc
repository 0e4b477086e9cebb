// Scope selectors that reach every place (issue 13, item 2): a CUDA gate inside operator(), a
// lambda, a method of a nested class; Python methods of nested classes; and the message of an
// edit whose scope names nothing, which lists the scopes the file has.
#include <fstream>

#include <gtest/gtest.h>

#include "env/digest.h"
#include "plan/planner.h"
#include "rules/loader.h"

namespace archpatch::plan {
namespace {
namespace fs = std::filesystem;

const char kKernel[] = R"cu(#pragma once
template <class Mainloop>
struct GemmKernel {
  CUTLASS_DEVICE void operator()(int const& params, char* smem) {
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 900) && (__CUDA_ARCH__ < 1200)
    grid_sync();
#endif
  }
  struct Inner {
    static void run() {
#if (__CUDA_ARCH__ >= 900) && (__CUDA_ARCH__ < 1200)
      cluster_sync();
#endif
    }
  };
};

void launch(int n) {
  auto pick = [&](int i) {
#if (__CUDA_ARCH__ >= 900) && (__CUDA_ARCH__ < 1200)
    return i + 1;
#else
    return i;
#endif
  };
}
)cu";

const char kPython[] = R"py(import torch


class Backend:
    class Runner:
        def check(self):
            return torch.cuda.get_device_capability()[0] in [9, 10]

    def __call__(self):
        return torch.cuda.get_device_capability()[0] in [9, 10]
)py";

class SelectorsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "archpatch_select_XXXXXX").string();
    root_ = mkdtemp(tmpl.data());
    Write("demo/include/kernel.cuh", kKernel);
    Write("demo/backend.py", kPython);
    Write("demo_pkg-0.3.1.dist-info/METADATA", "Name: demo-pkg\nVersion: 0.3.1\n");
  }
  void TearDown() override { fs::remove_all(root_); }
  void Write(const std::string& relative, const std::string& bytes) {
    fs::create_directories((root_ / relative).parent_path());
    std::ofstream(root_ / relative, std::ios::binary) << bytes;
  }
  // The plan of a rule with this one edit.
  Result<EditPlan> Plan(const std::string& edit) {
    const std::string text = "id: demo\nsummary: demo\ndistribution: demo-pkg\ntargets: [sm_120]\nedits:\n" + edit;
    Result<rules::Rule> rule = rules::ParseRule(text, "demo.yaml");
    EXPECT_TRUE(rule) << rule.error().str();
    Result<env::Environment> env = env::LoadSitePackages(root_);
    EXPECT_TRUE(env) << env.error().str();
    return PlanRules({*rule}, *env);
  }
  // The lines the plan changes, "LINE:after" each.
  std::vector<std::string> Changed(const std::string& edit) {
    Result<EditPlan> plan = Plan(edit);
    EXPECT_TRUE(plan) << plan.error().str();
    std::vector<std::string> out;
    if (!plan) return out;
    for (const FilePlan& f : plan->rules[0].files) {
      for (const TextEdit& e : f.edits) out.push_back(std::to_string(e.line) + ":" + e.after);
    }
    return out;
  }
  static std::string CudaEdit(const std::string& scope, int expect) {
    return "  - file: demo/include/kernel.cuh\n    cuda-gate: {macro: __CUDA_ARCH__, scope: \"" + scope +
           "\", strategy: drop-bound}\n    expect: " + std::to_string(expect) + "\n";
  }
  fs::path root_;
};

TEST_F(SelectorsTest, AGateInsideOperatorCallIsSelectedByItsName) {
  EXPECT_EQ(Changed(CudaEdit("operator()", 1)),
            std::vector<std::string>{"5:defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 900)"});
  EXPECT_EQ(Changed(CudaEdit("GemmKernel::operator()", 1)).size(), 1u);
}

TEST_F(SelectorsTest, AMethodOfANestedClassAndTheClassItself) {
  EXPECT_EQ(Changed(CudaEdit("Inner::run", 1)), std::vector<std::string>{"11:(__CUDA_ARCH__ >= 900)"});
  // A class names every method defined in it, nested classes' included.
  EXPECT_EQ(Changed(CudaEdit("GemmKernel", 2)).size(), 2u);
}

TEST_F(SelectorsTest, ALambdaByItsVariableOrByItsFunction) {
  EXPECT_EQ(Changed(CudaEdit("pick", 1)), std::vector<std::string>{"20:(__CUDA_ARCH__ >= 900)"});
  EXPECT_EQ(Changed(CudaEdit("launch", 1)).size(), 1u);
}

TEST_F(SelectorsTest, ReplaceInsideOperatorCall) {
  EXPECT_EQ(Changed("  - file: demo/include/kernel.cuh\n    replace: {scope: \"operator()\", old: grid_sync, new: "
                    "grid_sync_all}\n"),
            std::vector<std::string>{"6:grid_sync_all"});
}

TEST_F(SelectorsTest, PythonMethodsOfNestedClassesAndDunderCall) {
  const std::string edit = "  - file: demo/backend.py\n    python-gate: {scope: \"Runner.check\", add: major}\n";
  EXPECT_EQ(Changed(edit), std::vector<std::string>{"7:[9, 10, 12]"});
  EXPECT_EQ(Changed("  - file: demo/backend.py\n    python-gate: {scope: \"Backend.__call__\", add: major}\n"),
            std::vector<std::string>{"10:[9, 10, 12]"});
}

TEST_F(SelectorsTest, AScopeThatNamesNothingListsTheScopesOfTheFile) {
  Result<EditPlan> plan = Plan(CudaEdit("operator[]", 1));
  ASSERT_FALSE(plan);
  const std::string message = plan.error().str();
  EXPECT_NE(message.find("found 0"), std::string::npos) << message;
  EXPECT_NE(message.find("scopes in demo/include/kernel.cuh: GemmKernel::operator(), GemmKernel::Inner::run, "
                         "launch, launch::pick"),
            std::string::npos)
      << message;
  plan = Plan("  - file: demo/backend.py\n    python-gate: {scope: \"Runner.chek\", add: major}\n");
  ASSERT_FALSE(plan);
  EXPECT_NE(plan.error().str().find("scopes in demo/backend.py: Backend, Backend.Runner, Backend.Runner.check, "
                                    "Backend.__call__"),
            std::string::npos)
      << plan.error().str();
}

}  // namespace
}  // namespace archpatch::plan
