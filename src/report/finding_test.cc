// The --json contract of a finding (docs/audit.md): what a script reading `audit --json` sees.
#include "report/finding.h"

#include <algorithm>

#include <gtest/gtest.h>

#include "report/json_text.h"

namespace archpatch {
namespace {

using json = nlohmann::ordered_json;

Finding DirectiveGate() {
  Finding f;
  f.file = "k.cu", f.line = 4, f.column = 5;
  f.kind = gate::Kind::kCudaGate;
  f.text = "__CUDA_ARCH__ >= 900";
  f.verdict = {{"sm_120", Tri::kFalse}, {"sm_90", Tri::kTrue}, {"sm_100", Tri::kUnknown}};
  f.span = {10, 30};
  f.form = gate::DirectiveForm{gate::DirectiveKind::kIf, 4, "__CUDA_ARCH__ >= 900"};
  f.block = gate::Block{5, 7, {31, 80}, {"gemm_sm90"}, {}, std::nullopt};
  f.chain.enclosing_line = 2;
  f.chain.enclosing = gate::Verdicts{{"sm_120", Tri::kTrue}};
  return f;
}

std::vector<std::string> Keys(const json& j) {
  std::vector<std::string> keys;
  for (const auto& [k, v] : j.items()) keys.push_back(k);
  return keys;
}

TEST(FindingJson, VerdictPerArchKeepsTheAuditsArchOrder) {
  const json j = ToJson(DirectiveGate());
  EXPECT_EQ(j["verdict"].dump(), R"({"sm_120":"false","sm_90":"true","sm_100":"unknown"})");
  EXPECT_EQ(j["kind"], "cuda-gate");
  EXPECT_EQ(j["enclosing_verdict"]["sm_120"], "true");
}

TEST(FindingJson, DirectiveKeysInTheDocumentedOrder) {
  EXPECT_EQ(Keys(ToJson(DirectiveGate())),
            (std::vector<std::string>{"file", "line", "column", "kind", "severity", "text", "verdict", "span", "form",
                                      "directive", "directive_line", "effective", "block", "enclosing_line",
                                      "enclosing_verdict"}));
  EXPECT_EQ(ToJson(DirectiveGate())["block"].dump(),
            R"({"first_line":5,"last_line":7,"lines":3,"begin":31,"end":80,"kernels":["gemm_sm90"]})");
}

TEST(FindingJson, UnfilledResolutionFieldsAreLeftOut) {
  const json j = ToJson(DirectiveGate());
  for (const char* key :
       {"via", "direction", "class", "class_reason", "target_takes", "defines", "holds", "enables", "root"}) {
    EXPECT_FALSE(j.contains(key)) << key;
  }
}

TEST(FindingJson, ARuntimeGateSaysItsDirectionAndViaAfterItsForm) {
  Finding f;
  f.kind = gate::Kind::kCppRuntimeGate;
  f.form = gate::RuntimeForm{"comparison", ""};
  f.direction = gate::Direction::kRefuses;
  f.via = {{"csrc/arch.h", 12, 3, "constexpr int kSM_100 = 100", "kSM_100", std::nullopt}};
  const json j = ToJson(f);
  EXPECT_EQ(j["direction"], "refuses");
  EXPECT_EQ(j["via"].dump(),
            R"([{"file":"csrc/arch.h","line":12,"column":3,"text":"constexpr int kSM_100 = 100","name":"kSM_100"}])");
  const std::vector<std::string> keys = Keys(j);
  EXPECT_EQ(std::vector<std::string>(keys.end() - 3, keys.end()),
            (std::vector<std::string>{"form", "direction", "via"}));
}

TEST(FindingJson, APredicateCallStepListsTheArchesItIsFalseOn) {
  Finding f;
  f.kind = gate::Kind::kPythonGate;
  gate::PythonForm p;
  p.shape = "predicate-call", p.name = "is_sm100a_supported()", p.negated = true;
  f.form = p;
  f.direction = gate::Direction::kFallback;
  f.via = {{"pkg/utils.py", 616, 1, "def is_sm100a_supported(device):", "is_sm100a_supported()",
            std::vector<std::string>{"sm_120"}}};
  const json j = ToJson(f);
  EXPECT_EQ(j["direction"], "fallback");
  EXPECT_EQ(j["negated"], true);
  EXPECT_EQ(j["via"][0]["false_on"].dump(), R"(["sm_120"])");
  EXPECT_FALSE(j.contains("literal_span"));  // the package model resolved it: no literal of its own
  EXPECT_FALSE(j.contains("values"));
}

// A directive branch is classed by the scan, beside its block; other findings by the grouping,
// after what the evaluators added. The keys keep that order (docs/audit.md).
TEST(FindingJson, ClassSitsBesideTheBlockForDirectivesAndLastForOthers) {
  Finding d = DirectiveGate();
  d.block->defines = {"SM90_ENABLED"};
  d.block->holds = gate::BlockHolds::kDefines;
  d.exclusion = gate::Classification{gate::ExclusionClass::kEmpty, "sm_120 takes no branch",
                                     gate::TargetBranch{gate::BlockHolds::kNothing, true, 0}};
  d.widen = gate::WidenHazard{gate::WidenSafety::kSafe, "sm_120", {}, {}, {}, "", "why"};
  d.explain = {"why"};
  d.enables = 2;
  json j = ToJson(d);
  std::vector<std::string> keys = Keys(j);
  auto at = [&](const char* key) { return std::find(keys.begin(), keys.end(), key) - keys.begin(); };
  EXPECT_LT(at("holds"), at("class"));
  EXPECT_EQ(at("class") + 1, at("class_reason"));
  EXPECT_EQ(at("class_reason") + 1, at("target_takes"));
  EXPECT_LT(at("target_takes"), at("widen"));
  EXPECT_EQ(keys.back(), "enables");
  EXPECT_EQ(j["target_takes"].dump(), R"({"holds":"nothing","certain":true})");
  EXPECT_EQ(j["defines"].dump(), R"(["SM90_ENABLED"])");

  Finding p;
  p.kind = gate::Kind::kPythonGate;
  p.form = gate::PythonForm{};
  p.no_image_binaries = {"pkg/_C.so"};
  p.exclusion =
      gate::Classification{gate::ExclusionClass::kRefusal, "the target is refused or skipped here", std::nullopt};
  p.root = gate::RootLink{"G2", "pkg/a.py", 3, 7};
  j = ToJson(p);
  keys = Keys(j);
  EXPECT_EQ(std::vector<std::string>(keys.end() - 4, keys.end()),
            (std::vector<std::string>{"no_image_binaries", "class", "class_reason", "root"}));
  EXPECT_EQ(j["root"].dump(), R"({"group":"G2","file":"pkg/a.py","line":3,"column":7})");

  gate::PrebuiltArtifacts link;
  link.group = "TRTLLM_GEN_BMM";
  link.declared = "flashinfer/artifacts.py:139";
  link.path = "5988e15c/batched_gemm";
  link.via = "gen_trtllm_gen_fused_moe_sm100_module";
  link.arches = {"sm_100f"};
  link.arches_from = gate::ArchesFrom::kCubinHeaders;
  link.binaries = {"flashinfer_cubin/cubins/5988e15c/batched_gemm/Bmm.cubin"};
  link.binary_count = 1;
  link.runs_on_target = Tri::kFalse;
  p.prebuilt = {link};
  j = ToJson(p);
  keys = Keys(j);
  EXPECT_EQ(std::vector<std::string>(keys.end() - 5, keys.end()),
            (std::vector<std::string>{"no_image_binaries", "prebuilt", "class", "class_reason", "root"}));
  EXPECT_EQ(j["prebuilt"].dump(),
            R"([{"group":"TRTLLM_GEN_BMM","declared":"flashinfer/artifacts.py:139","path":"5988e15c/batched_gemm",)"
            R"("via":"gen_trtllm_gen_fused_moe_sm100_module","arches":["sm_100f"],"arches_from":"cubin-headers",)"
            R"("binaries":["flashinfer_cubin/cubins/5988e15c/batched_gemm/Bmm.cubin"],"binary_count":1,)"
            R"("runs_on_target":false}])");
  p.prebuilt[0].runs_on_target = Tri::kUnknown;
  EXPECT_TRUE(ToJson(p)["prebuilt"][0]["runs_on_target"].is_null());
}

TEST(FindingJson, PythonValuesKeepTheirTypes) {
  Finding f;
  f.kind = gate::Kind::kPythonGate;
  gate::PythonForm p;
  p.shape = "keyword", p.name = "supported_major_versions", p.operand = "major", p.op = "in";
  p.values.type = gate::PythonValue::Type::kList;
  p.values.items = {{gate::PythonValue::Type::kInt, 9, "", {}}, {}};
  p.literal_span = gate::ByteSpan{};
  f.form = p;
  const json j = ToJson(f);
  EXPECT_EQ(j["values"].dump(), "[9,null]");
  EXPECT_EQ(j["literal_span"].dump(), R"({"begin":0,"end":0})");
}

TEST(FindingJson, WidenFieldsFollowTheGateAndTheReasonLast) {
  Finding f = DirectiveGate();
  f.widen = gate::WidenHazard{gate::WidenSafety::kUnsafe, "sm_120", {}, {}, {"helper"}, "sm_120a", "why"};
  const json j = ToJson(f);
  EXPECT_EQ(j["widen"], "widen-unsafe");
  EXPECT_EQ(j["available_on_variant"], "sm_120a");
  EXPECT_EQ(Keys(j).back(), "widen_reason");
}

// --json prints each finding as it writes it (FindingText), never built as a value: the bytes
// must be those of the value's dump(2), every form and optional member included.
TEST(FindingText, PrintsWhatTheValuesDumpPrints) {
  std::vector<Finding> findings = {DirectiveGate()};
  Finding widened = DirectiveGate();
  gate::FeatureUse use{"tcgen05", "instruction", "tcgen05.mma", 12, "helper", {"sm_100a"}, "ptx isa \"9.2\""};
  widened.widen = gate::WidenHazard{gate::WidenSafety::kUnsafe, "sm_120", {use}, {use, use}, {"f"}, "sm_120a", "why"};
  widened.exclusion = gate::Classification{gate::ExclusionClass::kRefusal, "because", gate::TargetBranch{}};
  widened.explain = {"line one", "line \xff two"};  // not UTF-8: U+FFFD either way
  findings.push_back(widened);
  // An empty kernel's own "target" takes the widen verdict's, where the kernel put it.
  Finding empty = widened;
  empty.empty_kernel = gate::EmptyKernel{"k", "sm_100", {"sm_120"}, {"sm_100"}, {{7, "#if", "X", widened.widen}}};
  empty.widen->target = "sm_121";
  findings.push_back(empty);
  Finding python;
  python.kind = gate::Kind::kPythonGate;
  gate::PythonForm form;
  form.shape = "condition";
  form.terms = {{"major", ">=", {gate::PythonValue::Type::kInt, 9, "", {}}},
                {"arch",
                 "in",
                 {gate::PythonValue::Type::kList, 0, "", {{gate::PythonValue::Type::kString, 0, "sm_90a", {}}, {}}}}};
  form.literal_span = gate::ByteSpan{3, 9};
  python.form = form;
  python.via = {{"m.py", 3, 1, "is_sm90()", "is_sm90", std::vector<std::string>{"sm_120"}}};
  python.direction = gate::Direction::kRefuses;
  python.prebuilt = {gate::PrebuiltArtifacts{"G", "a.py:1", "p", "gen", {"sm_100f"}, {}, {"x.cubin"}, 1, Tri::kFalse}};
  python.root = gate::RootLink{"G2", "m.py", 3, 1};
  python.enables = 4;
  findings.push_back(python);
  Finding nothing;  // no optional member; bytes nlohmann escapes, and DEL, which it does not
  nothing.text = "tab\there \\ back \x7f del \x01";
  findings.push_back(nothing);
  for (const Finding& f : findings) {
    for (unsigned depth : {0u, 4u}) EXPECT_EQ(report::FindingText(f, depth), report::IndentedText(ToJson(f), depth));
  }
  const json j = ToJson(empty);
  EXPECT_EQ(j["target"], "sm_121");
  const std::vector<std::string> keys = Keys(j);
  EXPECT_EQ(std::count(keys.begin(), keys.end(), "target"), 1);
}

}  // namespace
}  // namespace archpatch
