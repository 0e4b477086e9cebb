#include "report/finding.h"

#include <algorithm>
#include <utility>

#include "report/json_sink.h"
#include "report/json_text.h"
#include "report/json_writers.h"

namespace archpatch {
namespace report {
namespace {

using json = nlohmann::ordered_json;

// The writers below say, once, which keys each value has and in which order; S is a sink of
// report/json_sink.h (a value built, or its text printed). Each object is opened by its caller.

template <class S>
void WriteSpan(S& s, std::string_view key, const gate::ByteSpan& b) {
  s.BeginObject(key);
  s.Member("begin", b.begin);
  s.Member("end", b.end);
  s.End();
}

template <class S>
void WriteBlock(S& s, const gate::Block& b) {
  s.BeginObject("block");
  s.Member("first_line", b.first_line);
  s.Member("last_line", b.last_line);
  s.Member("lines", b.lines());
  s.Member("begin", b.bytes.begin);
  s.Member("end", b.bytes.end);
  s.Member("kernels", b.kernels);
  s.End();
}

template <class S>
void WriteVerdicts(S& s, std::string_view key, const gate::Verdicts& verdicts) {
  s.BeginObject(key);
  for (const gate::ArchVerdict& v : verdicts) s.Member(v.arch, TriName(v.value));
  s.End();
}

// Printed, a verdict object the thread printed last under the same key and at the same depth is
// copied: the findings printed in turn are mostly a file's, with the same verdicts (CUTLASS's
// 700-gate headers, one set each), and their 23 members were a quarter of a finding's text.
void WriteVerdicts(JsonTextWriter& s, std::string_view key, const gate::Verdicts& verdicts) {
  struct Printed {
    std::string key;
    unsigned depth = 0;
    gate::Verdicts verdicts;
    std::string text;
  };
  thread_local std::vector<Printed> last;  // one for each key: "verdict", "earlier_verdict", ...
  auto it = std::find_if(last.begin(), last.end(), [&](const Printed& p) { return p.key == key; });
  if (it == last.end()) it = last.insert(last.end(), Printed{std::string(key), 0, {}, {}});
  const unsigned depth = s.MemberDepth();
  if (it->text.empty() || it->depth != depth || it->verdicts != verdicts) {
    it->text.clear();
    JsonTextWriter value(it->text, depth);
    value.BeginObject();
    for (const gate::ArchVerdict& v : verdicts) value.Member(v.arch, TriName(v.value));
    value.End();
    it->depth = depth;
    it->verdicts = verdicts;
  }
  s.MemberText(key, it->text);
}

// A step of `via`: its name and, for a predicate call, the arches it is false on, when it has them.
template <class S>
void WriteVia(S& s, const std::vector<gate::Place>& via) {
  if (via.empty()) return;
  WriteObjects(s, "via", via, [&](const gate::Place& p) {
    s.Member("file", p.file);
    s.Member("line", p.line);
    s.Member("column", p.column);
    s.Member("text", p.text);
    if (!p.name.empty()) s.Member("name", p.name);
    if (p.false_on) s.Member("false_on", *p.false_on);
  });
}

// A Python value under `key`, or as an item when `key` is empty.
template <class S>
void WritePythonValue(S& s, std::string_view key, const gate::PythonValue& v) {
  auto scalar = [&](const auto& x) { key.empty() ? s.Item(x) : s.Member(key, x); };
  switch (v.type) {
    case gate::PythonValue::Type::kNull: return scalar(nullptr);
    case gate::PythonValue::Type::kInt: return scalar(v.number);
    case gate::PythonValue::Type::kString: return scalar(v.text);
    case gate::PythonValue::Type::kList: break;
  }
  key.empty() ? s.BeginArray() : s.BeginArray(key);
  for (const gate::PythonValue& item : v.items) WritePythonValue(s, "", item);
  s.End();
}

template <class S>
void WriteUses(S& s, std::string_view key, const std::vector<gate::FeatureUse>& uses) {
  WriteObjects(s, key, uses, [&](const gate::FeatureUse& u) {
    s.Member("feature", u.feature);
    s.Member("what", u.what);
    s.Member("found", u.found);
    s.Member("line", u.line);
    if (!u.via.empty()) s.Member("via", u.via);
    s.Member("arches", u.arches);
    s.Member("source", u.source);
  });
}

// The members of a widen verdict ("widen", "target", "needs", ...), into the open object; a
// finding that names its kernel's target already gives "target" where it did (`with_target`).
template <class S>
void WriteWidenMembers(S& s, const gate::WidenHazard& w, bool with_target = true) {
  s.Member("widen", gate::WidenSafetyName(w.safety));
  if (with_target) s.Member("target", w.target);
  WriteUses(s, "needs", w.needs);
  WriteUses(s, "uses", w.uses);
  s.Member("unseen_calls", w.unseen_calls);
  if (!w.available_on_variant.empty()) s.Member("available_on_variant", w.available_on_variant);
}

// The keys of each form, in the order the scanners of that form have always written them: the
// direction and the via chain belong to the forms whose scanners resolve them.
template <class S>
void WriteForm(S& s, const gate::DirectiveForm& d, const Finding&) {
  s.Member("form", "directive");
  s.Member("directive", gate::DirectiveName(d.directive));
  s.Member("directive_line", d.directive_line);
  s.Member("effective", d.effective);
}

template <class S>
void WriteForm(S& s, const gate::NvTargetForm& n, const Finding&) {
  s.Member("form", "nv-target");
  s.Member("macro", n.macro);
  s.Member("branch", n.branch);
  if (n.condition) s.Member("condition", *n.condition);
}

template <class S>
void WriteForm(S& s, const gate::RuntimeForm& r, const Finding& f) {
  s.Member("form", r.form);
  if (!r.check.empty()) s.Member("check", r.check);
  if (f.direction != gate::Direction::kUnknown) s.Member("direction", gate::DirectionName(f.direction));
  WriteVia(s, f.via);
}

template <class S>
void WriteForm(S& s, const gate::PythonForm& p, const Finding& f) {
  s.Member("shape", p.shape);
  s.Member("name", p.name);
  if (f.direction != gate::Direction::kUnknown) s.Member("direction", gate::DirectionName(f.direction));
  if (p.negated) s.Member("negated", true);
  if (!p.literal_span) {  // resolved by the package model: no literal of its own
    WriteVia(s, f.via);
    return;
  }
  if (p.shape == "condition") {
    WriteObjects(s, "values", p.terms, [&](const gate::PythonTerm& t) {
      s.Member("operand", t.operand);
      s.Member("op", t.op);
      WritePythonValue(s, "value", t.value);
    });
  } else {
    s.Member("operand", p.operand);
    s.Member("op", p.op);
    WritePythonValue(s, "values", p.values);
  }
  WriteVia(s, f.via);
  WriteSpan(s, "literal_span", *p.literal_span);
}

template <class S>
void WriteForm(S& s, const std::monostate&, const Finding& f) {
  WriteVia(s, f.via);
}

template <class S>
void WriteEmptyKernel(S& s, const gate::EmptyKernel& k, const gate::WidenHazard* widen) {
  s.Member("kernel", k.kernel);
  // A widen verdict's target took this key's place (the value's keys were once merged in).
  s.Member("target", widen ? widen->target : k.target);
  s.Member("empty_on", k.empty_on);
  s.Member("real_body_on", k.real_body_on);
  WriteObjects(s, "gates", k.gates, [&](const gate::KernelGate& g) {
    s.Member("line", g.line);
    s.Member("directive", g.directive);
    s.Member("condition", g.condition);
    if (!g.widen) return;
    s.BeginObject("widen");
    WriteWidenMembers(s, *g.widen);
    s.End();
  });
}

template <class S>
void WriteBinary(S& s, const gate::BinaryCoverage& b) {
  s.Member("sass", b.sass);
  s.Member("ptx", b.ptx);
  const gate::TargetCoverage first = b.targets.empty() ? gate::TargetCoverage{} : b.targets.front();
  s.Member("status", first.status);
  first.runs ? s.Member("runs", *first.runs) : s.Member("runs", nullptr);
  s.BeginObject("targets");
  for (const gate::TargetCoverage& t : b.targets) {
    s.BeginObject(t.target);
    s.Member("status", t.status);
    t.runs ? s.Member("runs", *t.runs) : s.Member("runs", nullptr);
    if (t.ptx_version) s.Member("ptx_version", *t.ptx_version);
    if (t.runtime_note) s.Member("runtime_note", *t.runtime_note);
    s.End();
  }
  s.End();
  if (!b.distribution.empty()) s.Member("distribution", b.distribution);
}

template <class S>
void WriteClassification(S& s, const gate::Classification& c) {
  s.Member("class", gate::ExclusionClassName(c.klass));
  s.Member("class_reason", c.reason);
  if (!c.target_takes) return;
  s.BeginObject("target_takes");
  s.Member("holds", gate::BlockHoldsName(c.target_takes->holds));
  s.Member("certain", c.target_takes->certain);
  if (c.target_takes->line > 0) s.Member("line", c.target_takes->line);
  s.End();
}

// A finding's members, into its open object.
template <class S>
void WriteFinding(S& s, const Finding& f) {
  s.Member("file", f.file);
  s.Member("line", f.line);
  s.Member("column", f.column);
  s.Member("kind", gate::KindName(f.kind));
  s.Member("severity", SeverityName(f.severity));
  s.Member("text", f.text);
  WriteVerdicts(s, "verdict", f.verdict);
  if (!f.scope.empty()) s.Member("scope", f.scope);
  WriteSpan(s, "span", f.span);
  if (!f.summary.empty()) s.Member("summary", f.summary);
  std::visit([&](const auto& form) { WriteForm(s, form, f); }, f.form);
  if (f.block) WriteBlock(s, *f.block);
  if (f.chain.earlier_taken && !f.chain.enclosing_before_earlier) {
    WriteVerdicts(s, "earlier_verdict", *f.chain.earlier_taken);
  }
  if (f.chain.enclosing) {  // a runtime check inside an if arm has no enclosing line
    if (f.chain.enclosing_line > 0) s.Member("enclosing_line", f.chain.enclosing_line);
    WriteVerdicts(s, "enclosing_verdict", *f.chain.enclosing);
  }
  if (f.chain.earlier_taken && f.chain.enclosing_before_earlier) {
    WriteVerdicts(s, "earlier_verdict", *f.chain.earlier_taken);
  }
  if (f.block && !f.block->defines.empty()) s.Member("defines", f.block->defines);
  if (f.block && f.block->holds) s.Member("holds", gate::BlockHoldsName(*f.block->holds));
  // A directive branch is classed by the scan, beside its block; every other finding later, by
  // scan::BuildGroups, after what the evaluators added.
  const bool classed_by_scan = f.directive() != nullptr;
  if (f.exclusion && classed_by_scan) WriteClassification(s, *f.exclusion);
  if (f.empty_kernel) WriteEmptyKernel(s, *f.empty_kernel, f.widen ? &*f.widen : nullptr);
  if (f.binary) WriteBinary(s, *f.binary);
  if (!f.rule.empty()) s.Member("rule", f.rule);
  if (!f.reached_through.empty()) s.Member("reached_through", f.reached_through);
  if (f.widen) {
    WriteWidenMembers(s, *f.widen, /*with_target=*/!f.empty_kernel);
    if (!f.widen->reason.empty()) s.Member("widen_reason", f.widen->reason);
  }
  if (!f.no_image_binaries.empty()) s.Member("no_image_binaries", f.no_image_binaries);
  if (!f.prebuilt.empty()) WritePrebuilt(s, "prebuilt", f.prebuilt);
  if (!f.explain.empty()) s.Member("explain", f.explain);
  if (f.exclusion && !classed_by_scan) WriteClassification(s, *f.exclusion);
  if (f.enables) s.Member("enables", *f.enables);
  if (f.root) {
    s.BeginObject("root");
    s.Member("group", f.root->group);
    s.Member("file", f.root->file);
    s.Member("line", f.root->line);
    s.Member("column", f.root->column);
    s.End();
  }
}

// An object with room for `keys` members. ordered_json's object is a vector of
// pair<const string, json>: growing it copies every member (a const key cannot be moved, so the
// pair is not nothrow-movable), nested objects included.
json Object(size_t keys) {
  json j = json::object();
  j.get_ref<json::object_t&>().reserve(keys);
  return j;
}

// What a writer of one member gives: the member's value alone.
template <class Write>
json MemberValue(Write write) {
  json holder = json::object();
  ValueSink sink(holder);
  write(sink);
  return std::move(holder.begin().value());
}

}  // namespace

json VerdictJson(const gate::Verdicts& verdicts) {
  return MemberValue([&](ValueSink& s) { WriteVerdicts(s, "v", verdicts); });
}

json WidenJson(const gate::WidenHazard& w) {
  json j = Object(6);
  ValueSink sink(j);
  WriteWidenMembers(sink, w);
  return j;
}

nlohmann::ordered_json PrebuiltJson(const std::vector<gate::PrebuiltArtifacts>& links) {
  return MemberValue([&](ValueSink& s) { WritePrebuilt(s, "p", links); });
}

std::string FindingText(const Finding& f, unsigned depth) {
  // A library's coverage names a target per image: should two name the same, the value keeps the
  // last (nlohmann's object), which a writer cannot take back.
  if (f.binary) return IndentedText(gate::ToJson(f), depth);
  std::string out;
  out.reserve(4096);  // a directive gate's text is 3-4 KB
  JsonTextWriter writer(out, depth);
  writer.BeginObject();
  WriteFinding(writer, f);
  writer.End();
  return out;
}

}  // namespace report

nlohmann::ordered_json gate::ToJson(const Finding& f) {
  report::json j = report::Object(48);  // more than any finding has
  report::ValueSink sink(j);
  report::WriteFinding(sink, f);
  return j;
}

}  // namespace archpatch
