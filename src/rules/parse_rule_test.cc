// The strict schema: a good rule reads back as written; each mistake an author makes gets one
// message at the right file:line:column.
#include <gtest/gtest.h>

#include "env/digest.h"
#include "rules/loader.h"

namespace archpatch::rules {
namespace {

const char kGood[] = R"yaml(id: demo-sm12x
summary: Enable demo's kernel on SM120/SM121
notes: |
  Read me.
distribution: Demo_Pkg
versions: ">=0.2.6,<0.4"
targets: [sm_120, 12.1]
caches: [flashinfer]
edits:
  - file: demo/jit.py
    python-gate:
      scope: gen_module
      name: supported_major_versions
    expect: 1
  - file: demo/include/*.cuh
    cuda-gate:
      macro: __CUDA_ARCH__
      scope: kernel
      strategy: raise-bound
  - file: demo/backend.py
    replace:
      scope: resolve
      old: "is_sm90() or is_sm100()"
      new: "is_sm90() or is_sm100() or is_sm120()"
    expect: 0
)yaml";

// Parses kGood with `from` replaced by `to`; returns the error text ("" when it parsed).
std::string ErrorOf(const std::string& from, const std::string& to, const std::string& file = "demo-sm12x.yaml") {
  std::string text = kGood;
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  Result<Rule> rule = ParseRule(text, file, {"flashinfer", "torch-extensions", "triton"});
  return rule ? "" : rule.error().str();
}

TEST(ParseRule, ReadsEveryKey) {
  Result<Rule> rule = ParseRule(kGood, "rules/demo-sm12x.yaml");
  ASSERT_TRUE(rule) << rule.error().str();
  EXPECT_EQ(rule->id, "demo-sm12x");
  EXPECT_EQ(rule->distribution, "demo-pkg");
  EXPECT_EQ(rule->notes, "Read me.\n");
  EXPECT_EQ(rule->target_names, (std::vector<std::string>{"sm_120", "sm_121"}));
  EXPECT_EQ(rule->caches, (std::vector<std::string>{"flashinfer"}));
  ASSERT_EQ(rule->edits.size(), 3u);
  const auto& python = std::get<PythonGate>(rule->edits[0].action);
  EXPECT_EQ(python.scope, "gen_module");
  EXPECT_EQ(python.add, AddForm::kMajor);  // the default
  EXPECT_EQ(rule->edits[0].expect, 1);
  EXPECT_EQ(rule->edits[0].where.str(), "rules/demo-sm12x.yaml:10:5");
  const auto& cuda = std::get<CudaGate>(rule->edits[1].action);
  EXPECT_EQ(cuda.strategy, Strategy::kRaiseBound);
  EXPECT_FALSE(rule->edits[1].expect.has_value());
  EXPECT_EQ(rule->edits[2].KindName(), "replace");
  EXPECT_EQ(std::get<Replace>(rule->edits[2].action).new_text, "is_sm90() or is_sm100() or is_sm120()");
  EXPECT_EQ(rule->edits[2].expect, 0);
  EXPECT_EQ(Sha256Of(*rule), env::Sha256Hex(kGood));  // the manifest's digest of the file as read
}

TEST(ParseRule, UnknownKeysSuggestTheClosest) {
  EXPECT_EQ(ErrorOf("summary:", "sumary:"),
            "demo-sm12x.yaml:2:1: unknown key 'sumary' in rule, did you mean 'summary'?");
  EXPECT_EQ(ErrorOf("python-gate:", "python_gate:"),
            "demo-sm12x.yaml:11:5: unknown key 'python_gate' in edit 1, did you mean 'python-gate'?");
  EXPECT_EQ(ErrorOf("      strategy: raise-bound", "      stratgy: raise-bound"),
            "demo-sm12x.yaml:19:7: unknown key 'stratgy' in cuda-gate, did you mean 'strategy'?");
  EXPECT_EQ(ErrorOf("notes:", "color: red\nnotes:"),
            "demo-sm12x.yaml:3:1: unknown key 'color' in rule (known: id, summary, notes, "
            "distribution, versions, targets, caches, edits)");
}

TEST(ParseRule, WrongTypesAndMissingKeys) {
  EXPECT_EQ(ErrorOf("targets: [sm_120, 12.1]", "targets: sm_120"),
            "demo-sm12x.yaml:7:10: 'targets' must be a list ([a, b]), found a scalar");
  EXPECT_EQ(ErrorOf("summary: Enable demo's kernel on SM120/SM121", "summary: [a, b]"),
            "demo-sm12x.yaml:2:10: 'summary' must be a string, found a list");
  EXPECT_EQ(ErrorOf("    expect: 1", "    expect: one"),
            "demo-sm12x.yaml:14:13: 'expect' must be a whole number, found 'one'");
  EXPECT_EQ(ErrorOf("distribution: Demo_Pkg\n", ""),
            "demo-sm12x.yaml:1:1: rule is missing the required key 'distribution'");
  EXPECT_EQ(ErrorOf("      macro: __CUDA_ARCH__\n", ""),
            "demo-sm12x.yaml:17:7: cuda-gate is missing the required key 'macro'");
  EXPECT_EQ(ErrorOf("id: demo-sm12x\n", "id: demo-sm12x\nid: again\n"),
            "demo-sm12x.yaml:2:1: duplicate key 'id' in rule");
}

TEST(ParseRule, ImpossibleCombinations) {
  EXPECT_EQ(ErrorOf("    expect: 1", "    expect: -1"), "demo-sm12x.yaml:14:13: 'expect' must be 0 or more, found -1");
  EXPECT_EQ(ErrorOf("    expect: 1", "    replace: {old: a, new: b}"),
            "demo-sm12x.yaml:10:5: edit 1 has both 'python-gate' and 'replace'; an edit makes "
            "exactly one change (write two edits)");
  EXPECT_EQ(ErrorOf("      strategy: raise-bound", "      strategy: drop"),
            "demo-sm12x.yaml:19:17: unknown strategy 'drop', did you mean 'drop-bound'? (one of: "
            "drop-bound, raise-bound, or-target)");
  // The arch stage's message, placed at the list entry.
  EXPECT_EQ(ErrorOf("12.1]", "sm_122]").rfind("demo-sm12x.yaml:7:19: unknown arch 'sm_122'", 0), 0u);
  EXPECT_EQ(ErrorOf("", "", "other-name.yaml"),
            "other-name.yaml:1:5: id 'demo-sm12x' must equal the file name 'other-name'");
  EXPECT_EQ(ErrorOf("caches: [flashinfer]", "caches: [flashinfr]"),
            "demo-sm12x.yaml:8:10: unknown cache 'flashinfr', did you mean 'flashinfer'? "
            "(rules/caches.yaml declares: flashinfer, torch-extensions, triton)");
  EXPECT_EQ(ErrorOf("versions: \">=0.2.6,<0.4\"", "versions: \"0.3\""),
            "demo-sm12x.yaml:6:11: '0.3' in '0.3' is not a version specifier (>=1.0, <2, ~=1.4, "
            "==1.*, !=1.3.0rc1)");
  EXPECT_EQ(ErrorOf("  - file: demo/jit.py", "  - file: ../../etc/passwd"),
            "demo-sm12x.yaml:10:11: '../../etc/passwd' contains '..'; paths must stay inside site-packages");
  EXPECT_EQ(ErrorOf("  - file: demo/jit.py", "  - file: /usr/lib/x.py"),
            "demo-sm12x.yaml:10:11: '/usr/lib/x.py' is absolute; paths must be relative to site-packages");
  EXPECT_EQ(ErrorOf("      scope: gen_module\n      name: supported_major_versions\n", "      add: major\n"),
            "demo-sm12x.yaml:12:7: python-gate needs 'scope' or 'name' (or both): an edit must not "
            "widen every gate of a file by accident");
}

TEST(ParseRule, YamlSyntaxErrorsHaveAPlace) {
  Result<Rule> rule = ParseRule("id: [unclosed\n", "x.yaml");
  ASSERT_FALSE(rule);
  EXPECT_EQ(rule.error().where.file, "x.yaml");
  EXPECT_GT(rule.error().where.line, 0);
  rule = ParseRule("- a\n- b\n", "x.yaml");
  ASSERT_FALSE(rule);
  EXPECT_EQ(rule.error().str(), "x.yaml:1:1: a rule must be a map of keys (id, summary, ...), found a list");
}

// Issue 16, item 9: a 30 KB id or macro overflowed the stack through std::regex recursion.
TEST(ParseRule, LongIdsAndMacrosAreRefusedWithoutCrashing) {
  const std::string long_id(30000, 'a');
  EXPECT_EQ(ErrorOf("id: demo-sm12x", "id: " + long_id, "x.yml"),
            "x.yml:1:5: id 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa... (30000 bytes)' is longer than 128 bytes");
  EXPECT_EQ(ErrorOf("macro: __CUDA_ARCH__", "macro: " + std::string(30000, 'M')),
            "demo-sm12x.yaml:17:14: 'macro' is longer than 256 bytes");
  EXPECT_EQ(ErrorOf("macro: __CUDA_ARCH__", "macro: " + std::string(256, 'M')), "");
  EXPECT_EQ(ErrorOf("macro: __CUDA_ARCH__", "macro: 9ARCH"),
            "demo-sm12x.yaml:17:14: 'macro' must be one macro name, found '9ARCH'");
  EXPECT_EQ(ErrorOf("id: demo-sm12x", "id: Demo", "x.yml"),
            "x.yml:1:5: id 'Demo' must be lowercase letters, digits, '.', '_' and '-'");
}

// Issue 16, item 15: yaml-cpp's Load read the first document and dropped the rest silently.
TEST(ParseRule, ASecondDocumentIsRefusedAtItsPlace) {
  const std::string text = std::string(kGood) + "---\nid: other\n";
  Result<Rule> rule = ParseRule(text, "demo-sm12x.yaml");
  ASSERT_FALSE(rule);
  EXPECT_EQ(rule.error().str(),
            "demo-sm12x.yaml:26:1: a second YAML document; a file holds one (put each rule in its own file)");
  rule = ParseRule("---\n" + std::string(kGood) + "---\n", "demo-sm12x.yaml");
  ASSERT_FALSE(rule);
  EXPECT_EQ(rule.error().where.line, 27);
  EXPECT_TRUE(ParseRule("---\n" + std::string(kGood) + "...\n", "demo-sm12x.yaml"));
}

// Found by fuzz_rule: yaml-cpp's LoadAll looped forever on a stray ',' after a top-level node.
TEST(ParseRule, AStrayCommaIsAnErrorNotAHang) {
  EXPECT_FALSE(ParseRule(", a\n", "x.yaml"));
  EXPECT_FALSE(ParseRule("# c\n  , la used_by: [minifi]\n", "x.yaml"));
  EXPECT_FALSE(ParseRule("- a\n, b\n", "x.yaml"));
}

}  // namespace
}  // namespace archpatch::rules
