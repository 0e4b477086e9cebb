#include "report/finding.h"

#include <utility>

namespace archpatch {
namespace report {
namespace {

using json = nlohmann::ordered_json;

// An empty object with room for `keys` members. ordered_json's object is a vector of
// pair<const string, json>: growing it copies every member (a const key cannot be moved, so the
// pair is not nothrow-movable), nested objects included. Built without room, an audit's findings
// spent a quarter of their JSON time in those copies.
json Object(size_t keys) {
  json j = json::object();
  j.get_ref<json::object_t&>().reserve(keys);
  return j;
}

json SpanJson(const gate::ByteSpan& s) { return {{"begin", s.begin}, {"end", s.end}}; }

json BlockJson(const gate::Block& b) {
  return {{"first_line", b.first_line}, {"last_line", b.last_line}, {"lines", b.lines()},
          {"begin", b.bytes.begin},     {"end", b.bytes.end},       {"kernels", b.kernels}};
}

// A step of `via`: its name and, for a predicate call, the arches it is false on, when it has them.
json PlaceJson(const gate::Place& p) {
  json j = {{"file", p.file}, {"line", p.line}, {"column", p.column}, {"text", p.text}};
  if (!p.name.empty()) j["name"] = p.name;
  if (p.false_on) j["false_on"] = *p.false_on;
  return j;
}

void AddVia(json& j, const std::vector<gate::Place>& via) {
  if (via.empty()) return;
  json places = json::array();
  for (const gate::Place& p : via) places.push_back(PlaceJson(p));
  j["via"] = std::move(places);
}

json PythonValueJson(const gate::PythonValue& v) {
  switch (v.type) {
    case gate::PythonValue::Type::kNull: return nullptr;
    case gate::PythonValue::Type::kInt: return v.number;
    case gate::PythonValue::Type::kString: return v.text;
    case gate::PythonValue::Type::kList: break;
  }
  json items = json::array();
  for (const gate::PythonValue& item : v.items) items.push_back(PythonValueJson(item));
  return items;
}

json UseJson(const gate::FeatureUse& u) {
  json j = Object(7);
  j["feature"] = u.feature;
  j["what"] = u.what;
  j["found"] = u.found;
  j["line"] = u.line;
  if (!u.via.empty()) j["via"] = u.via;
  j["arches"] = u.arches;
  j["source"] = u.source;
  return j;
}

// The keys of each form, in the order the scanners of that form have always written them: the
// direction and the via chain belong to the forms whose scanners resolve them.
void AddForm(json& j, const gate::DirectiveForm& d, const Finding&) {
  j["form"] = "directive";
  j["directive"] = gate::DirectiveName(d.directive);
  j["directive_line"] = d.directive_line;
  j["effective"] = d.effective;
}

void AddForm(json& j, const gate::NvTargetForm& n, const Finding&) {
  j["form"] = "nv-target";
  j["macro"] = n.macro;
  j["branch"] = n.branch;
  if (n.condition) j["condition"] = *n.condition;
}

void AddForm(json& j, const gate::RuntimeForm& r, const Finding& f) {
  j["form"] = r.form;
  if (!r.check.empty()) j["check"] = r.check;
  if (f.direction != gate::Direction::kUnknown) j["direction"] = gate::DirectionName(f.direction);
  AddVia(j, f.via);
}

void AddForm(json& j, const gate::PythonForm& p, const Finding& f) {
  j["shape"] = p.shape;
  j["name"] = p.name;
  if (f.direction != gate::Direction::kUnknown) j["direction"] = gate::DirectionName(f.direction);
  if (p.negated) j["negated"] = true;
  if (!p.literal_span) {  // resolved by the package model: no literal of its own
    AddVia(j, f.via);
    return;
  }
  if (p.shape == "condition") {
    json parts = json::array();
    for (const gate::PythonTerm& t : p.terms) {
      parts.push_back({{"operand", t.operand}, {"op", t.op}, {"value", PythonValueJson(t.value)}});
    }
    j["values"] = std::move(parts);
  } else {
    j["operand"] = p.operand;
    j["op"] = p.op;
    j["values"] = PythonValueJson(p.values);
  }
  AddVia(j, f.via);
  j["literal_span"] = SpanJson(*p.literal_span);
}

void AddForm(json& j, const std::monostate&, const Finding& f) { AddVia(j, f.via); }

void AddEmptyKernel(json& j, const gate::EmptyKernel& k) {
  j["kernel"] = k.kernel;
  j["target"] = k.target;
  j["empty_on"] = k.empty_on;
  j["real_body_on"] = k.real_body_on;
  json gates = json::array();
  for (const gate::KernelGate& g : k.gates) {
    json x;
    x["line"] = g.line;
    x["directive"] = g.directive;
    x["condition"] = g.condition;
    if (g.widen) x["widen"] = WidenJson(*g.widen);
    gates.push_back(x);
  }
  j["gates"] = std::move(gates);
}

void AddBinary(json& j, const gate::BinaryCoverage& b) {
  j["sass"] = b.sass;
  j["ptx"] = b.ptx;
  json targets = json::object();
  for (const gate::TargetCoverage& t : b.targets) {
    targets[t.target] = {{"status", t.status}, {"runs", t.runs ? json(*t.runs) : json()}};
    if (t.ptx_version) targets[t.target]["ptx_version"] = *t.ptx_version;
    if (t.runtime_note) targets[t.target]["runtime_note"] = *t.runtime_note;
  }
  const gate::TargetCoverage first = b.targets.empty() ? gate::TargetCoverage{} : b.targets.front();
  j["status"] = first.status;
  j["runs"] = first.runs ? json(*first.runs) : json();
  j["targets"] = std::move(targets);
  if (!b.distribution.empty()) j["distribution"] = b.distribution;
}

void AddClassification(json& j, const gate::Classification& c) {
  j["class"] = gate::ExclusionClassName(c.klass);
  j["class_reason"] = c.reason;
  if (!c.target_takes) return;
  json takes = {{"holds", gate::BlockHoldsName(c.target_takes->holds)}, {"certain", c.target_takes->certain}};
  if (c.target_takes->line > 0) takes["line"] = c.target_takes->line;
  j["target_takes"] = std::move(takes);
}

}  // namespace

json VerdictJson(const gate::Verdicts& verdicts) {
  json j = Object(verdicts.size());
  // Appended, not looked up by key: a verdict names each arch once, and operator[] compares the
  // key with every member before it (23 arches, three maps per finding).
  json::object_t& members = j.get_ref<json::object_t&>();
  for (const gate::ArchVerdict& v : verdicts) members.emplace_back(v.arch, TriName(v.value));
  return j;
}

json WidenJson(const gate::WidenHazard& w) {
  json j = Object(6);
  j["widen"] = gate::WidenSafetyName(w.safety);
  j["target"] = w.target;
  json needs = json::array();
  for (const gate::FeatureUse& u : w.needs) needs.push_back(UseJson(u));
  j["needs"] = std::move(needs);
  json uses = json::array();
  for (const gate::FeatureUse& u : w.uses) uses.push_back(UseJson(u));
  j["uses"] = std::move(uses);
  j["unseen_calls"] = w.unseen_calls;
  if (!w.available_on_variant.empty()) j["available_on_variant"] = w.available_on_variant;
  return j;
}

}  // namespace report

nlohmann::ordered_json gate::ToJson(const Finding& f) {
  using report::json;
  json j = report::Object(48);  // more than any finding has
  j["file"] = f.file;
  j["line"] = f.line;
  j["column"] = f.column;
  j["kind"] = gate::KindName(f.kind);
  j["severity"] = SeverityName(f.severity);
  j["text"] = f.text;
  j["verdict"] = report::VerdictJson(f.verdict);
  if (!f.scope.empty()) j["scope"] = f.scope;
  j["span"] = report::SpanJson(f.span);
  if (!f.summary.empty()) j["summary"] = f.summary;
  std::visit([&](const auto& form) { report::AddForm(j, form, f); }, f.form);
  if (f.block) j["block"] = report::BlockJson(*f.block);
  if (f.chain.earlier_taken && !f.chain.enclosing_before_earlier) {
    j["earlier_verdict"] = report::VerdictJson(*f.chain.earlier_taken);
  }
  if (f.chain.enclosing) {  // a runtime check inside an if arm has no enclosing line
    if (f.chain.enclosing_line > 0) j["enclosing_line"] = f.chain.enclosing_line;
    j["enclosing_verdict"] = report::VerdictJson(*f.chain.enclosing);
  }
  if (f.chain.earlier_taken && f.chain.enclosing_before_earlier) {
    j["earlier_verdict"] = report::VerdictJson(*f.chain.earlier_taken);
  }
  if (f.block && !f.block->defines.empty()) j["defines"] = f.block->defines;
  if (f.block && f.block->holds) j["holds"] = gate::BlockHoldsName(*f.block->holds);
  // A directive branch is classed by the scan, beside its block; every other finding later, by
  // scan::BuildGroups, after what the evaluators added.
  const bool classed_by_scan = f.directive() != nullptr;
  if (f.exclusion && classed_by_scan) report::AddClassification(j, *f.exclusion);
  if (f.empty_kernel) report::AddEmptyKernel(j, *f.empty_kernel);
  if (f.binary) report::AddBinary(j, *f.binary);
  if (!f.rule.empty()) j["rule"] = f.rule;
  if (!f.reached_through.empty()) j["reached_through"] = f.reached_through;
  if (f.widen) {
    json widen = report::WidenJson(*f.widen);
    for (auto& [key, value] : widen.get_ref<json::object_t&>()) j[key] = std::move(value);
    if (!f.widen->reason.empty()) j["widen_reason"] = f.widen->reason;
  }
  if (!f.no_image_binaries.empty()) j["no_image_binaries"] = f.no_image_binaries;
  if (!f.prebuilt.empty()) j["prebuilt"] = report::PrebuiltJson(f.prebuilt);
  if (!f.explain.empty()) j["explain"] = f.explain;
  if (f.exclusion && !classed_by_scan) report::AddClassification(j, *f.exclusion);
  if (f.enables) j["enables"] = *f.enables;
  if (f.root) {
    j["root"] = {{"group", f.root->group}, {"file", f.root->file}, {"line", f.root->line}, {"column", f.root->column}};
  }
  return j;
}

namespace report {

nlohmann::ordered_json PrebuiltJson(const std::vector<gate::PrebuiltArtifacts>& links) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const gate::PrebuiltArtifacts& l : links) {
    out.push_back({{"group", l.group},
                   {"declared", l.declared},
                   {"path", l.path},
                   {"via", l.via},
                   {"arches", l.arches},
                   {"arches_from", gate::ArchesFromName(l.arches_from)},
                   {"binaries", l.binaries},
                   {"binary_count", l.binary_count},
                   {"runs_on_target", l.runs_on_target == Tri::kUnknown
                                          ? nlohmann::ordered_json(nullptr)
                                          : nlohmann::ordered_json(l.runs_on_target == Tri::kTrue)}});
  }
  return out;
}

}  // namespace report
}  // namespace archpatch
