#include "suggest/candidate.h"

#include <fmt/format.h>

namespace archpatch::suggest {
namespace {

std::string DetailString(const Finding& f, const char* key) {
  auto it = f.details.find(key);
  return it != f.details.end() && it->is_string() ? it->get<std::string>() : "";
}

std::vector<UsedFeature> Uses(const Finding& f) {
  std::vector<UsedFeature> out;
  auto uses = f.details.find("uses");
  if (uses == f.details.end() || !uses->is_array()) return out;
  for (const auto& u : *uses) {
    if (!u.is_object()) continue;
    UsedFeature feature{u.value("feature", ""), u.value("what", "")};
    bool seen = false;
    for (const UsedFeature& o : out) seen = seen || o.id == feature.id;
    if (!feature.id.empty() && !seen) out.push_back(std::move(feature));
  }
  return out;
}

std::string KnownUnsafeLine(const report::Group& g) {
  if (!g.known_unsafe) return "";
  return fmt::format("do not widen: {}, because {} [known-unsafe {}]", g.known_unsafe->what, g.known_unsafe->because,
                     g.known_unsafe->id);
}

}  // namespace

std::vector<Candidate> ToCandidates(const std::vector<report::Group>& groups, const std::vector<Finding>& findings) {
  std::vector<Candidate> out;
  for (const report::Group& g : groups) {
    const Finding& root = findings[g.root];
    Candidate c;
    c.group = g.id;
    c.klass = g.klass;
    c.class_reason = g.reason;
    c.widen = g.widen;
    c.widen_reasons = g.widen_reasons;
    c.lacking = g.features;
    c.covered_by = g.covered_by;
    c.known_unsafe = KnownUnsafeLine(g);
    c.switches_off = g.switches_off;
    c.places = g.places.size();
    c.file = root.file;
    c.line = root.line;
    c.column = root.column;
    c.kind = root.kind;
    c.form = DetailString(root, "form");
    c.directive = DetailString(root, "directive");
    c.text = root.text;
    c.scope = root.scope;
    c.name = DetailString(root, "name");
    c.operand = DetailString(root, "operand");
    c.span_begin = root.span.begin;
    c.widen_sentence = DetailString(root, "widen_reason");
    c.uses = Uses(root);
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace archpatch::suggest
