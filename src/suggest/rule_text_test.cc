#include "suggest/rule_text.h"

#include <gtest/gtest.h>

#include "rules/loader.h"

namespace archpatch::suggest {
namespace {

rules::Rule Draft() {
  rules::Rule r;
  r.id = "demo-sm_120-suggested";
  r.summary = "Widen 2 gates of demo 1.0 for sm_120";
  r.notes = "edit 1: 'x: y' \"quoted\" # not a comment\nsecond line\n";
  r.distribution = "demo";
  r.versions = "==1.0";
  r.target_names = {"sm_120"};
  r.caches = {"minifi"};
  rules::Edit cuda;
  cuda.file = "demo/k.cuh";
  cuda.action = rules::CudaGate{"__CUDA_ARCH__", "Gemm::operator()", rules::Strategy::kOrTarget};
  cuda.expect = 2;
  rules::Edit py;
  py.file = "demo/jit.py";
  py.action = rules::PythonGate{"Builder.gen", "supported_major_versions", rules::AddForm::kCapability};
  py.expect = 1;
  r.edits = {cuda, py};
  return r;
}

TEST(RuleYaml, ReadsBackAsTheSameRule) {
  const std::string yaml = RuleYaml(Draft());
  Result<rules::Rule> back = rules::ParseRule(yaml, "demo-sm_120-suggested.yaml", {"minifi"});
  ASSERT_TRUE(back) << back.error().str() << "\n" << yaml;
  EXPECT_EQ(back->summary, Draft().summary);
  EXPECT_EQ(back->notes, Draft().notes);
  EXPECT_EQ(back->versions, "==1.0");
  EXPECT_EQ(back->caches, std::vector<std::string>{"minifi"});
  ASSERT_EQ(back->edits.size(), 2u);
  const auto& gate = std::get<rules::CudaGate>(back->edits[0].action);
  EXPECT_EQ(gate.scope, "Gemm::operator()");
  EXPECT_EQ(gate.strategy, rules::Strategy::kOrTarget);
  EXPECT_EQ(back->edits[0].expect, 2);
  const auto& py = std::get<rules::PythonGate>(back->edits[1].action);
  EXPECT_EQ(py.name, "supported_major_versions");
  EXPECT_EQ(py.add, rules::AddForm::kCapability);
}

TEST(RuleYaml, LaysTheFileOutAsTheShippedRules) {
  const std::string yaml = RuleYaml(Draft());
  EXPECT_TRUE(yaml.starts_with("id: demo-sm_120-suggested\nsummary: ")) << yaml;
  EXPECT_NE(yaml.find("notes: |\n  edit 1:"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("targets: [sm_120]\n"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("edits:\n  - file: demo/k.cuh\n    cuda-gate:\n      macro: __CUDA_ARCH__\n"), std::string::npos)
      << yaml;
  EXPECT_EQ(yaml.find("\n\n"), std::string::npos) << "no blank line after the notes:\n" << yaml;
}

}  // namespace
}  // namespace archpatch::suggest
