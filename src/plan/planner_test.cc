// Planning against small site-packages trees written by the test: the gates a rule selects, the
// bytes it would change, satisfied rules, and each refusal with its message.
#include "plan/planner.h"

#include <cstdlib>
#include <fstream>

#include <gtest/gtest.h>

#include "env/digest.h"
#include "rules/loader.h"
#include "util/input_file.h"

namespace archpatch::plan {
namespace {
namespace fs = std::filesystem;

const char kBuilder[] = R"py(from .core import build_flags


def gen_fused_comm_module():
    flags = build_flags(supported_major_versions=[9, 10])  # the gate to widen
    return flags


def gen_mnnvl_module():
    return build_flags(supported_major_versions=[10])  # left alone on purpose
)py";

const char kHeader[] = R"cu(#pragma once
__device__ void wait_prior() {
#if (__CUDA_ARCH__ >= 900) && (__CUDA_ARCH__ < 1200)
  grid_sync();
#endif
}
#if __CUDA_ARCH__ >= 700
__device__ int lanes() { return 32; }
#endif
)cu";

const char kRule[] = R"yaml(id: demo-sm12x
summary: demo
distribution: demo-pkg
versions: ">=0.2,<0.4"
targets: [sm_120]
edits:
  - file: demo/*.py
    python-gate: {scope: gen_fused_comm_module, name: supported_major_versions}
    expect: 1
  - file: demo/include/*.cuh
    cuda-gate: {macro: __CUDA_ARCH__, strategy: drop-bound}
    expect: 2
)yaml";

class PlannerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "archpatch_plan_XXXXXX").string();
    root_ = mkdtemp(tmpl.data());
    Write("demo/jit.py", kBuilder);
    Write("demo/include/comm.cuh", kHeader);
    Write("demo_pkg-0.3.1.dist-info/METADATA", "Name: demo-pkg\nVersion: 0.3.1\n");
  }
  void TearDown() override { fs::remove_all(root_); }
  void Write(const std::string& relative, const std::string& bytes) {
    fs::create_directories((root_ / relative).parent_path());
    std::ofstream(root_ / relative, std::ios::binary) << bytes;
  }
  std::string Read(const std::string& relative) { return *ReadInputFile(root_ / relative, kMaxSourceBytes); }
  Result<EditPlan> Plan(const std::string& rule_text = kRule) {
    Result<rules::Rule> rule = rules::ParseRule(rule_text, "demo-sm12x.yaml");
    EXPECT_TRUE(rule) << rule.error().str();
    Result<env::Environment> env = env::LoadSitePackages(root_);
    EXPECT_TRUE(env) << env.error().str();
    return PlanRules({*rule}, *env);
  }
  std::string PlanError(const std::string& rule_text = kRule) {
    Result<EditPlan> plan = Plan(rule_text);
    return plan ? "" : plan.error().str();
  }
  static std::string With(std::string text, const std::string& from, const std::string& to) {
    text.replace(text.find(from), from.size(), to);
    return text;
  }
  fs::path root_;
};

TEST_F(PlannerTest, WidensTheSelectedGatesOnly) {
  Result<EditPlan> plan = Plan();
  ASSERT_TRUE(plan) << plan.error().str();
  ASSERT_EQ(plan->rules.size(), 1u);
  const RulePlan& rule = plan->rules[0];
  EXPECT_FALSE(rule.satisfied);
  EXPECT_EQ(rule.version, "0.3.1");
  EXPECT_EQ(rule.rule_sha256, env::Sha256Hex(kRule));  // what the manifest records of the rule file
  ASSERT_EQ(rule.files.size(), 2u);
  EXPECT_EQ(rule.files[0].path, "demo/include/comm.cuh");  // sorted by path
  EXPECT_EQ(rule.files[1].path, "demo/jit.py");
  EXPECT_EQ(rule.files[0].sha256_before, env::Sha256Hex(kHeader));
  const std::string header = ApplyEdits(kHeader, rule.files[0]);
  EXPECT_NE(header.find("#if (__CUDA_ARCH__ >= 900)\n"), std::string::npos) << header;
  EXPECT_NE(header.find("#if __CUDA_ARCH__ >= 700\n"), std::string::npos);
  EXPECT_EQ(rule.files[0].sha256_after, env::Sha256Hex(header));
  const std::string builder = ApplyEdits(kBuilder, rule.files[1]);
  EXPECT_NE(builder.find("supported_major_versions=[9, 10, 12])  # the gate"), std::string::npos) << builder;
  EXPECT_NE(builder.find("supported_major_versions=[10])  # left alone"), std::string::npos);
  ASSERT_EQ(rule.files[1].edits.size(), 1u);
  EXPECT_EQ(rule.files[1].edits[0].line, 5);
  EXPECT_EQ(rule.files[1].edits[0].edit_index, 0);
  EXPECT_EQ(rule.notes[1], "edit 2 (cuda-gate): 2 places, 1 already admits sm_120");
}

TEST_F(PlannerTest, AnAppliedTreeIsSatisfied) {
  Result<EditPlan> plan = Plan();
  ASSERT_TRUE(plan);
  for (const FilePlan& f : plan->rules[0].files) Write(f.path, ApplyEdits(Read(f.path), f));
  Result<EditPlan> again = Plan();
  ASSERT_TRUE(again) << again.error().str();
  EXPECT_TRUE(again->rules[0].satisfied);
  EXPECT_TRUE(again->rules[0].files.empty());
  EXPECT_TRUE(again->satisfied());
}

TEST_F(PlannerTest, ReplaceInsideAPythonScope) {
  Write("demo/backend.py",
        "def resolve():\n    if is_sm90() or is_sm100():\n        return 'fused'\n\n"
        "def other():\n    return is_sm90() or is_sm100()\n");
  const std::string rule = With(kRule, "edits:\n", R"yaml(edits:
  - file: demo/backend.py
    replace: {scope: resolve, old: "is_sm90() or is_sm100()", new: "is_sm90() or is_sm100() or is_sm120()"}
    expect: 1
)yaml");
  Result<EditPlan> plan = Plan(rule);
  ASSERT_TRUE(plan) << plan.error().str();
  const FilePlan& f = plan->rules[0].files[0];
  EXPECT_EQ(f.path, "demo/backend.py");
  ASSERT_EQ(f.edits.size(), 1u);
  EXPECT_EQ(f.edits[0].line, 2);
  for (const FilePlan& file : plan->rules[0].files) Write(file.path, ApplyEdits(Read(file.path), file));
  EXPECT_NE(Read("demo/backend.py").find("return is_sm90() or is_sm100()\n"), std::string::npos)
      << "outside the scope: unchanged";
  Result<EditPlan> again = Plan(rule);
  ASSERT_TRUE(again) << again.error().str();
  EXPECT_TRUE(again->rules[0].satisfied) << "new contains old: the old inside new is not matched again";
}

TEST_F(PlannerTest, AGlobSkipsAFileThatIsNotPythonButANamedFileMustScan) {
  Write("demo/legacy.py", "x = 1\nsql = 'unterminated\n");
  Result<EditPlan> plan = Plan();
  ASSERT_TRUE(plan) << plan.error().str();
  EXPECT_NE(plan->rules[0].notes[0].find("edit 1: skipped demo/legacy.py:2:"), std::string::npos)
      << plan->rules[0].notes[0];
  const std::string error = PlanError(With(kRule, "demo/*.py", "demo/legacy.py"));
  EXPECT_EQ(error.rfind("rule 'demo-sm12x' edit 1 (demo/legacy.py): demo/legacy.py:2:", 0), 0u) << error;
}

TEST_F(PlannerTest, RefusesAVersionOutsideTheRange) {
  Write("demo_pkg-0.3.1.dist-info/METADATA", "Name: demo-pkg\nVersion: 0.4.0\n");
  EXPECT_EQ(PlanError(), "rule 'demo-sm12x': demo-pkg 0.4.0 is outside the rule's versions '>=0.2,<0.4'");
}

TEST_F(PlannerTest, RefusesAMissingDistribution) {
  fs::remove_all(root_ / "demo_pkg-0.3.1.dist-info");
  EXPECT_EQ(PlanError(),
            "rule 'demo-sm12x': distribution 'demo-pkg' is not installed in '" + fs::canonical(root_).string() + "'");
}

TEST_F(PlannerTest, NamesTheEditThatDoesNotMatch) {
  EXPECT_EQ(PlanError(With(kRule, "expect: 2", "expect: 3")),
            "rule 'demo-sm12x' edit 2 (demo/include/*.cuh): expected 3 cuda-gate on '__CUDA_ARCH__', found 2 "
            "(demo/include/comm.cuh:3; demo/include/comm.cuh:7)");
  EXPECT_EQ(PlanError(With(kRule, "scope: gen_fused_comm_module", "scope: gen_fused")),
            "rule 'demo-sm12x' edit 1 (demo/*.py): expected 1 python-gate (scope 'gen_fused', name "
            "'supported_major_versions'), found 0; not selected: demo/jit.py:5: python-gate "
            "'supported_major_versions=[9, 10]' in 'gen_fused_comm_module'; demo/jit.py:10: python-gate "
            "'supported_major_versions=[10]' in 'gen_mnnvl_module'; scopes in demo/jit.py: "
            "gen_fused_comm_module, gen_mnnvl_module");
  EXPECT_EQ(PlanError(With(kRule, "demo/*.py", "demo/nothing/*.py")),
            "rule 'demo-sm12x' edit 1 (demo/nothing/*.py): no file matches in '" + fs::canonical(root_).string() + "'");
}

TEST_F(PlannerTest, RefusesBinaryAndHugeFiles) {
  Write("demo/jit.py", std::string("x = [9, 10]\0\n", 13));
  EXPECT_EQ(PlanError(),
            "rule 'demo-sm12x' edit 1 (demo/*.py): 'demo/jit.py' is binary (a NUL byte at offset 11); rules "
            "edit text files only");
  Write("demo/jit.py", std::string((16u << 20) + 1, '#'));
  EXPECT_EQ(PlanError(),
            "rule 'demo-sm12x' edit 1 (demo/*.py): 'demo/jit.py' has 16777217 bytes, over the 16 MiB limit for "
            "files a rule edits");
}

TEST_F(PlannerTest, RefusesASymlinkLeadingOut) {
  fs::remove(root_ / "demo/jit.py");
  fs::create_symlink("/etc/hostname", root_ / "demo/jit.py");
  const std::string error = PlanError();
  EXPECT_NE(error.find("rule 'demo-sm12x' edit 1 (demo/*.py): 'demo/jit.py': 'demo/jit.py' is a symlink"),
            std::string::npos)
      << error;
}

}  // namespace
}  // namespace archpatch::plan
