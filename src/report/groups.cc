#include "report/groups.h"

#include <algorithm>
#include <map>
#include <set>
#include <string_view>
#include <utility>

#include <fmt/color.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gate/prebuilt.h"
#include "report/finding.h"
#include "report/human.h"
#include "report/json_sink.h"
#include "report/json_text.h"
#include "report/json_writers.h"

namespace archpatch::report {
namespace {

std::string Plural(size_t n, std::string_view word) { return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s"); }

// "!(A) && !(B)" -> "A": the earlier branch an #else follows, for the one-line form.
std::string FirstNegatedTerm(const std::string& effective) {
  if (!effective.starts_with("!(")) return effective;
  int depth = 0;
  for (size_t i = 1; i < effective.size(); ++i) {
    if (effective[i] == '(') ++depth;
    if (effective[i] == ')' && --depth == 0) return effective.substr(2, i - 2);
  }
  return effective;
}

// The condition as people read it, cut to one line.
std::string Condition(const Finding& f) {
  std::string text = f.text;
  if (const gate::DirectiveForm* d = f.directive()) {
    text = d->directive == gate::DirectiveKind::kElse
               ? "#else of " + FirstNegatedTerm(d->effective)
               : fmt::format("#{} {}", gate::DirectiveName(d->directive), f.text);
  }
  text = OneLine(text);
  if (text.size() > 72) text = text.substr(0, 69) + "...";
  return text;
}

std::string Place(const Finding& f) { return fmt::format("{}:{}:{}", f.file, f.line, f.column); }

// The tags after a line: the shipped rules that edit the root, and the build that takes its path.
std::string Tags(const Group& g) {
  std::string tags = g.covered_by.empty() ? "" : fmt::format(" [rule {}]", fmt::join(g.covered_by, ", "));
  if (!g.admitted_on_variant.empty()) tags += fmt::format(" [taken when built for {}]", g.admitted_on_variant);
  return tags;
}

// Where a line sits: on its own, or under the heading of the known-unsafe entry it shares with
// others (which then says "do not widen" once for all of them).
enum class Under { kDistribution, kKnownUnsafe };

void PrintLine(std::FILE* out, const Group& g, const std::vector<Finding>& findings, const HumanOptions& o,
               Under under = Under::kDistribution) {
  const Finding& root = findings[g.root];
  const std::string indent(under == Under::kKnownUnsafe ? 4 : 2, ' '), more = indent + "    ";
  std::string places = g.places.empty() ? "" : fmt::format(" (+{})", Plural(g.places.size(), "place"));
  const std::string_view name = gate::ExclusionClassName(g.klass);
  std::string klass = o.color ? fmt::format(fmt::emphasis::bold, "{:<10}", name) : fmt::format("{:<10}", name);
  fmt::print(out, "{}{} {}: {} -> {}{}{}\n", indent, klass, Place(root), Condition(root), g.switches_off, places,
             Tags(g));
  if (g.known_unsafe && under == Under::kDistribution) {
    fmt::print(out, "{}do not widen: {}, because {} [known-unsafe {}]\n", more, g.known_unsafe->what,
               g.known_unsafe->because, g.known_unsafe->id);
  }
  if (!g.prebuilt.empty()) fmt::print(out, "{}prebuilt: {}\n", more, gate::PrebuiltSentence(g.prebuilt, o.target));
  if (!o.each) return;
  fmt::print(out, "{}why: {}\n", more, g.reason);
  fmt::print(out, "{}widen: {}: {}\n", more, gate::WidenSafetyName(g.widen), fmt::join(g.widen_reasons, "; "));
  // Every place in full (the root first): verdict per arch, block, what it means, hazards.
  PrintFinding(out, root, o.target, o.arch_order, o.color);
  for (size_t p : g.places) PrintFinding(out, findings[p], o.target, o.arch_order, o.color);
  fmt::print(out, "\n");
}

// The places of `groups` and the files they lie in.
std::pair<size_t, size_t> PlacesAndFiles(const std::vector<const Group*>& groups,
                                         const std::vector<Finding>& findings) {
  size_t places = 0;
  std::set<std::string_view> files;
  for (const Group* g : groups) {
    places += 1 + g->places.size();
    files.insert(findings[g->root].file);
    for (size_t p : g->places) files.insert(findings[p].file);
  }
  return {places, files.size()};
}

// Root causes on the known-unsafe list, one heading per entry and its root causes under it: a
// package's entry point that dispatches to kernels the target lacks is gated in dozens of places
// (DeepGEMM's GEMM, attention and MoE APIs: 28 on sm_121), and one line says why for all of them.
// After the root causes a patch can act on: no edit makes these run.
void PrintKnownUnsafe(std::FILE* out, const std::vector<const Group*>& marked, const std::vector<Finding>& findings,
                      const HumanOptions& o) {
  std::vector<std::pair<const gate::KnownUnsafeMark*, std::vector<const Group*>>> entries;  // in first-seen order
  for (const Group* g : marked) {
    auto same =
        std::find_if(entries.begin(), entries.end(), [&](const auto& e) { return e.first->id == g->known_unsafe->id; });
    if (same == entries.end()) same = entries.insert(entries.end(), {&*g->known_unsafe, {}});
    same->second.push_back(g);
  }
  for (const auto& [entry, groups] : entries) {
    const auto [places, files] = PlacesAndFiles(groups, findings);
    fmt::print(out, "  do not widen ({}, {} in {}): {}, because {} [known-unsafe {}]\n",
               Plural(groups.size(), "root cause"), Plural(places, "place"), Plural(files, "file"), entry->what,
               entry->because, entry->id);
    for (const Group* g : groups) PrintLine(out, *g, findings, o, Under::kKnownUnsafe);
  }
}

// What a feature line says of `groups`: that the target lacks the code, and whether built for
// its arch-specific variant (the one variant a hazard check names) all or some of them would run.
std::string LacksSentence(const std::vector<const Group*>& groups, const std::string& target) {
  std::string variant;
  size_t on_variant = 0;
  for (const Group* g : groups) {
    if (g->available_on_variant.empty()) continue;
    variant = g->available_on_variant;
    ++on_variant;
  }
  if (on_variant == 0) return fmt::format("code that {} lacks; widening cannot help", target);
  if (on_variant == groups.size()) {
    return fmt::format("code that {} lacks and {} has: build for {} (audit --arch {})", target, variant, variant,
                       variant);
  }
  return fmt::format("code that {} lacks; widening cannot help ({} of them would run built for {}: audit --arch {})",
                     target, on_variant, variant, variant);
}

// Hardware-exclusive root causes of one distribution, one line per set of missing features
// ("setmaxnreg + wgmma": filed under its first id, such a root cause read as one sm_120a runs).
// Code that only the target's arch-specific variant has (cvt.e2m1, setmaxnreg: sm_120a, not
// sm_120) says so: the chip has it, and the remedy is the build's target, not the gate.
void PrintFeatureLines(std::FILE* out, const std::vector<const Group*>& hw, const std::vector<Finding>& findings,
                       const HumanOptions& o) {
  std::map<std::string, std::vector<const Group*>> by_feature;
  for (const Group* g : hw) {
    by_feature[g->features.empty() ? "?" : fmt::format("{}", fmt::join(g->features, " + "))].push_back(g);
  }
  for (const auto& [feature, groups] : by_feature) {
    const auto [places, files] = PlacesAndFiles(groups, findings);
    fmt::print(out, "  {:<10} {}: {} ({} in {}), {}\n", "hardware", feature, Plural(groups.size(), "root cause"),
               Plural(places, "place"), Plural(files, "file"), LacksSentence(groups, o.target));
    if (!o.each) continue;
    for (const Group* g : groups) PrintLine(out, *g, findings, o);
  }
}

void PrintDistribution(std::FILE* out, const std::string& dist, std::vector<const Group*> groups,
                       const std::vector<Finding>& findings, const HumanOptions& o) {
  std::stable_sort(groups.begin(), groups.end(), [](const Group* a, const Group* b) {
    return gate::ClassRank(a->klass) < gate::ClassRank(b->klass);
  });
  size_t places = 0;
  for (const Group* g : groups) places += 1 + g->places.size();
  fmt::print(out, "{} ({}, {})\n", dist, Plural(groups.size(), "root cause"), Plural(places, "place"));
  std::vector<const Group*> hw, known_unsafe;
  for (const Group* g : groups) {
    if (g->klass == gate::ExclusionClass::kHardwareExclusive) {
      hw.push_back(g);
    } else if (g->known_unsafe) {
      known_unsafe.push_back(g);
    } else {
      PrintLine(out, *g, findings, o);
    }
  }
  PrintKnownUnsafe(out, known_unsafe, findings, o);
  PrintFeatureLines(out, hw, findings, o);
}

void PrintSummary(std::FILE* out, const std::vector<const Group*>& shown, size_t hidden,
                  const std::vector<Finding>& findings, const HumanOptions& o) {
  size_t places = 0, covered = 0, hw = 0, known_unsafe = 0, on_variant = 0;
  std::set<std::string> files, rules;
  std::string variant;  // the target's arch-specific variant, where a root cause names it
  for (const Group* g : shown) {
    const std::string& v = g->available_on_variant.empty() ? g->admitted_on_variant : g->available_on_variant;
    if (!v.empty()) variant = v, ++on_variant;
    places += 1 + g->places.size();
    files.insert(findings[g->root].file);
    if (g->klass == gate::ExclusionClass::kHardwareExclusive) {
      ++hw;
    } else if (g->known_unsafe) {
      ++known_unsafe;  // as listed: one on the list that the target lacks the hardware for is counted there
    }
    if (!g->covered_by.empty()) ++covered;
    rules.insert(g->covered_by.begin(), g->covered_by.end());
  }
  if (shown.empty()) {
    fmt::print(out, "no root cause keeps {} out ({} scanned)", o.target, Plural(o.files_scanned, "file"));
  } else {
    fmt::print(out, "{} keep{} {} out ({} in {}); {} hardware-exclusive", Plural(shown.size(), "root cause"),
               shown.size() == 1 ? "s" : "", o.target, Plural(places, "place"), Plural(files.size(), "file"), hw);
    if (known_unsafe > 0) fmt::print(out, ", {} known unsafe to widen", known_unsafe);
  }
  if (hidden > 0) fmt::print(out, "; {} not shown (legacy fallbacks, other chips' paths: --show-all)", hidden);
  fmt::print(out, "\n");
  if (shown.empty()) return;
  if (!rules.empty()) {
    fmt::print(out, "next: {} covered by shipped rules: archpatch apply --rule {} (add --dry-run to see the edits)\n",
               Plural(covered, "root cause"), fmt::join(rules, " --rule "));
  }
  if (on_variant > 0) {
    // Not "would run": FlashInfer's ue8m0 block needs what sm_121a has, but its gate names
    // sm_120a only, so built for sm_121a it is a gate to widen rather than missing hardware.
    fmt::print(out,
               "next: {} on building for {} (it has {} instructions, or {} gate admits it): archpatch audit "
               "--arch {} shows what is left\n",
               on_variant == 1 ? "1 root cause depends" : fmt::format("{} root causes depend", on_variant), variant,
               on_variant == 1 ? "its" : "their", on_variant == 1 ? "its" : "their", variant);
  }
  if (!o.each)
    fmt::print(out,
               "next: --each lists every place with why and whether widening is safe; --json or --sarif for tools\n");
}

}  // namespace

void PrintGroups(std::FILE* out, const std::vector<Group>& groups, const std::vector<Finding>& findings,
                 const HumanOptions& o) {
  std::map<std::string, std::vector<const Group*>> by_dist;
  std::vector<const Group*> shown;
  size_t hidden = 0;
  for (const Group& g : groups) {
    if (!o.show_all && !gate::KeepsTargetOut(g.klass)) {
      ++hidden;
      continue;
    }
    by_dist[g.distribution].push_back(&g);
    shown.push_back(&g);
  }
  for (const auto& [dist, list] : by_dist) {
    PrintDistribution(out, dist, list, findings, o);
    fmt::print(out, "\n");
  }
  PrintSummary(out, shown, hidden, findings, o);
}

namespace {

// A group's members, into its open object (a sink of report/json_sink.h).
template <class S>
void WriteGroup(S& s, const Group& g, const std::vector<Finding>& findings) {
  const Finding& r = findings[g.root];
  s.Member("id", g.id);
  s.BeginObject("root");
  s.Member("file", r.file);
  s.Member("line", r.line);
  s.Member("column", r.column);
  s.Member("text", r.text);
  s.Member("kind", gate::KindName(r.kind));
  s.End();
  s.Member("class", gate::ExclusionClassName(g.klass));
  s.Member("reason", g.reason);
  s.Member("distribution", g.distribution);
  s.Member("switches_off", g.switches_off);
  if (!g.admitted_on_variant.empty()) s.Member("admitted_on_variant", g.admitted_on_variant);
  WriteObjects(s, "places", g.places, [&](size_t p) {
    const Finding& f = findings[p];
    s.Member("file", f.file);
    s.Member("line", f.line);
    s.Member("column", f.column);
    s.Member("text", f.text);
    s.Member("class", f.exclusion ? gate::ExclusionClassName(f.exclusion->klass) : "");
  });
  s.BeginObject("widen");
  s.Member("verdict", gate::WidenSafetyName(g.widen));
  s.Member("reasons", g.widen_reasons);
  s.Member("features", g.features);
  if (!g.available_on_variant.empty()) s.Member("available_on_variant", g.available_on_variant);
  s.End();
  s.Member("covered_by", g.covered_by);
  if (g.known_unsafe) {
    s.BeginObject("known_unsafe");
    s.Member("id", g.known_unsafe->id);
    s.Member("what", g.known_unsafe->what);
    s.Member("because", g.known_unsafe->because);
    s.Member("reported", g.known_unsafe->reported);
    s.End();
  } else {
    s.Member("known_unsafe", nullptr);
  }
  WritePrebuilt(s, "prebuilt", g.prebuilt);
}

}  // namespace

nlohmann::ordered_json GroupJson(const Group& g, const std::vector<Finding>& findings) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  ValueSink sink(j);
  WriteGroup(sink, g, findings);
  return j;
}

std::string GroupText(const Group& g, const std::vector<Finding>& findings, unsigned depth) {
  std::string out;
  JsonTextWriter writer(out, depth);
  writer.BeginObject();
  WriteGroup(writer, g, findings);
  writer.End();
  return out;
}

nlohmann::ordered_json GroupsJson(const std::vector<Group>& groups, const std::vector<Finding>& findings) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const Group& g : groups) out.push_back(GroupJson(g, findings));
  return out;
}

}  // namespace archpatch::report
