#include "suggest/candidate.h"

#include <fmt/format.h>

namespace archpatch::suggest {
namespace {

std::vector<UsedFeature> Uses(const gate::Finding& f) {
  std::vector<UsedFeature> out;
  if (!f.widen) return out;
  for (const gate::FeatureUse& u : f.widen->uses) {
    bool seen = false;
    for (const UsedFeature& o : out) seen = seen || o.id == u.feature;
    if (!u.feature.empty() && !seen) out.push_back({u.feature, u.what});
  }
  return out;
}

std::string KnownUnsafeLine(const gate::Group& g) {
  if (!g.known_unsafe) return "";
  return fmt::format("do not widen: {}, because {} [known-unsafe {}]", g.known_unsafe->what, g.known_unsafe->because,
                     g.known_unsafe->id);
}

void SetForm(Candidate& c, const gate::Finding& root) {
  if (const gate::DirectiveForm* d = root.directive()) {
    c.form = "directive";
    c.directive = std::string(gate::DirectiveName(d->directive));
  } else if (root.nv_target()) {
    c.form = "nv-target";
  } else if (const gate::RuntimeForm* r = root.runtime()) {
    c.form = r->form;
  } else if (const gate::PythonForm* p = root.python()) {
    c.form = p->shape;
    c.name = p->name;
    c.operand = p->operand;
  }
}

}  // namespace

std::vector<Candidate> ToCandidates(const std::vector<gate::Group>& groups,
                                    const std::vector<gate::Finding>& findings) {
  std::vector<Candidate> out;
  for (const gate::Group& g : groups) {
    const gate::Finding& root = findings[g.root];
    Candidate c;
    c.group = g.id;
    c.klass = std::string(gate::ExclusionClassName(g.klass));
    c.keeps_target_out = gate::KeepsTargetOut(g.klass);
    c.class_reason = g.reason;
    c.widen = std::string(gate::WidenSafetyName(g.widen));
    c.widen_reasons = g.widen_reasons;
    c.lacking = g.features;
    c.lacking_variant = g.available_on_variant;
    c.admitted_variant = g.admitted_on_variant;
    c.covered_by = g.covered_by;
    c.known_unsafe = KnownUnsafeLine(g);
    c.switches_off = g.switches_off;
    c.places = g.places.size();
    c.file = root.file;
    c.line = root.line;
    c.column = root.column;
    c.kind = std::string(gate::KindName(root.kind));
    SetForm(c, root);
    c.text = root.text;
    c.scope = root.scope;
    c.span_begin = root.span.begin;
    c.widen_sentence = root.widen ? root.widen->reason : "";
    c.uses = Uses(root);
    for (const gate::ArchVerdict& v : root.verdict) {
      if (v.value == Tri::kTrue) c.admitted.push_back(v.arch);
    }
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace archpatch::suggest
