#include "suggest/assemble.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "env/digest.h"
#include "rules/loader.h"
#include "suggest/edits.h"
#include "suggest/fixture.h"
#include "suggest/rule_text.h"
#include "util/input_file.h"

namespace archpatch::suggest {
namespace {

bool Overlaps(const plan::Place& a, const plan::Place& b) { return a.begin < b.end && b.begin < a.end; }

ChosenEdit* EditChanging(std::vector<ChosenEdit>& edits, size_t begin) {
  for (ChosenEdit& e : edits) {
    for (const plan::Place& p : e.places) {
      if (p.begin == begin && Changes(p)) return &e;
    }
  }
  return nullptr;
}

void Refuse(const Accepted& a, std::string reason, std::vector<Refusal>& refused) {
  refused.push_back({a.candidate.group, WhereOf(a.candidate, a.owner), a.candidate.text, std::move(reason)});
}

// The edits of one file: broader scopes first, so a narrower root inside one is already selected.
std::vector<ChosenEdit> EditsOfFile(std::vector<const Accepted*> roots, const std::string& contents,
                                    const arch::Arch& target, std::vector<Refusal>& refused) {
  std::stable_sort(roots.begin(), roots.end(), [](const Accepted* a, const Accepted* b) {
    return a->candidate.scope.size() < b->candidate.scope.size();
  });
  std::vector<ChosenEdit> edits;
  for (const Accepted* a : roots) {
    if (ChosenEdit* e = EditChanging(edits, a->candidate.span_begin)) {
      e->groups.push_back(a->candidate.group);
      continue;
    }
    Result<ChosenEdit> chosen = EditFor(a->candidate, a->owner.relative, contents, target);
    if (!chosen) {
      Refuse(*a, chosen.error().message, refused);
      continue;
    }
    const bool overlaps = std::any_of(edits.begin(), edits.end(), [&](const ChosenEdit& e) {
      return std::any_of(e.places.begin(), e.places.end(), [&](const plan::Place& p) {
        return std::any_of(chosen->places.begin(), chosen->places.end(),
                           [&](const plan::Place& q) { return Changes(p) && Changes(q) && Overlaps(p, q); });
      });
    });
    if (overlaps) {
      Refuse(*a, "its edit would change a gate another edit of the draft changes", refused);
      continue;
    }
    edits.push_back(std::move(*chosen));
  }
  return edits;
}

// An edit may change only roots it was drafted for (or roots of other kept edits): a gate the
// audit did not call a widen-safe root cause (a legacy fallback in the same scope, an unsafe one)
// refuses the edit's root causes. Repeated until no edit is dropped.
void DropEditsChangingOthers(std::vector<ChosenEdit>& edits, const std::vector<const Accepted*>& roots,
                             std::vector<Refusal>& refused) {
  for (bool dropped = true; dropped;) {
    dropped = false;
    std::set<size_t> allowed;
    for (const ChosenEdit& e : edits) {
      for (const Accepted* a : roots) {
        if (std::count(e.groups.begin(), e.groups.end(), a->candidate.group)) allowed.insert(a->candidate.span_begin);
      }
    }
    for (auto e = edits.begin(); e != edits.end(); ++e) {
      auto other = std::find_if(e->places.begin(), e->places.end(),
                                [&](const plan::Place& p) { return Changes(p) && !allowed.count(p.begin); });
      if (other == e->places.end()) continue;
      const std::string reason =
          fmt::format("its edit would also change line {} ('{}'), which is no widen-safe root cause of this run",
                      other->line, other->before);
      for (const Accepted* a : roots) {
        if (std::count(e->groups.begin(), e->groups.end(), a->candidate.group)) Refuse(*a, reason, refused);
      }
      edits.erase(e);
      dropped = true;
      break;
    }
  }
}

std::string SafetyNote(const Candidate& c, const arch::Arch& target) {
  std::string why = c.widen_reasons.empty() ? c.widen : fmt::format("{}", fmt::join(c.widen_reasons, "; "));
  std::vector<std::string> uses;
  for (const UsedFeature& f : c.uses) uses.push_back(f.what.empty() ? f.id : fmt::format("{} ({})", f.id, f.what));
  if (c.widen != "widen-safe") {
    return fmt::format("NOT CHECKED: the hazard check says '{}'; check by hand that what it switches on runs on {}.",
                       why, target.name());
  }
  if (uses.empty()) return fmt::format("Believed safe: {}.", why);
  return fmt::format("Believed safe: {}; the block uses {}, which {} has.", why, fmt::join(uses, ", "), target.name());
}

std::string EditNote(size_t index, const ChosenEdit& e, const std::vector<const Accepted*>& roots,
                     const arch::Arch& target) {
  std::string out;
  for (const Accepted* a : roots) {
    const Candidate& c = a->candidate;
    if (!std::count(e.groups.begin(), e.groups.end(), c.group)) continue;
    out += fmt::format("edit {} ({}:{}, {}): '{}'{} switches on {} ({}: {}). {}\n", index + 1, e.edit.file, c.line,
                       c.group, c.text, c.scope.empty() ? "" : fmt::format(" in '{}'", c.scope), c.switches_off,
                       c.klass, c.class_reason, SafetyNote(c, target));
  }
  return out;
}

std::string Notes(const std::vector<ChosenEdit>& edits, const std::vector<const Accepted*>& roots,
                  const env::Distribution& dist, const arch::Arch& target, const std::vector<std::string>& groups) {
  std::string notes = fmt::format(
      "Drafted by `archpatch suggest --arch {}` from the audit of {} {} (root causes {}; the\n"
      "owner was found by {}). Read every edit before applying it: suggest trusts the audit's\n"
      "hazard check (rules/features.yaml), not a reading of the code.\n",
      target.name(), dist.normalized_name, dist.version, fmt::join(groups, ", "), roots.front()->owner.how);
  for (size_t i = 0; i < edits.size(); ++i) notes += EditNote(i, edits[i], roots, target);
  notes += fmt::format(
      "Versions: only {} was audited, and `expect` refuses a release whose gates differ; widen the\n"
      "range after dry runs on other releases (docs/rules.md, \"Checking a rule on real releases\").\n",
      dist.version);
  return notes;
}

std::vector<std::string> CachesOf(const std::string& distribution, const std::vector<store::CacheKind>& kinds) {
  std::vector<std::string> out;
  for (const store::CacheKind& k : kinds) {
    if (std::count(k.used_by.begin(), k.used_by.end(), distribution)) out.push_back(k.name);
  }
  return out;
}

rules::Rule RuleOf(const std::vector<ChosenEdit>& edits, const std::vector<const Accepted*>& roots,
                   const env::Distribution& dist, const arch::Arch& target, const std::vector<store::CacheKind>& kinds,
                   const std::vector<std::string>& groups) {
  rules::Rule rule;
  rule.id = fmt::format("{}-{}-suggested", dist.normalized_name, target.name());
  rule.summary = fmt::format("Widen {} gate{} of {} {} for {} (drafted by archpatch suggest from {})", edits.size(),
                             edits.size() == 1 ? "" : "s", dist.normalized_name, dist.version, target.name(),
                             fmt::join(groups, ", "));
  rule.notes = Notes(edits, roots, dist, target, groups);
  rule.distribution = dist.normalized_name;
  rule.versions = "==" + dist.version;
  rule.target_names = {target.name()};
  rule.caches = CachesOf(dist.normalized_name, kinds);
  for (const ChosenEdit& e : edits) rule.edits.push_back(e.edit);
  return rule;
}

}  // namespace

std::string WhereOf(const Candidate& c, const Owned& owner) {
  return fmt::format("{}:{}:{}", owner.distribution ? owner.relative : c.file, c.line, c.column);
}

namespace {

// The context every draft of one distribution shares.
struct DraftContext {
  const env::Environment& env;
  const env::Distribution& dist;
  const std::vector<Accepted>& accepted;
  const std::map<std::string, std::string>& contents;
  const arch::Arch& target;
  const std::vector<store::CacheKind>& kinds;
};

std::vector<const Accepted*> RootsOf(const std::vector<ChosenEdit>& edits, const std::vector<Accepted>& accepted) {
  std::vector<const Accepted*> roots;
  for (const Accepted& a : accepted) {
    if (std::any_of(edits.begin(), edits.end(), [&](const ChosenEdit& e) {
          return std::count(e.groups.begin(), e.groups.end(), a.candidate.group) > 0;
        })) {
      roots.push_back(&a);
    }
  }
  return roots;
}

// The rule and fixture of `edits`, checked (fixture.h CheckDraft); or why the check failed.
Result<SuggestedRule> Draft(const DraftContext& cx, const std::vector<ChosenEdit>& edits) {
  const std::vector<const Accepted*> roots = RootsOf(edits, cx.accepted);
  std::vector<std::string> groups;
  for (const Accepted* a : roots) groups.push_back(a->candidate.group);
  const rules::Rule rule = RuleOf(edits, roots, cx.dist, cx.target, cx.kinds, groups);
  SuggestedRule draft{rule.id,
                      cx.dist.normalized_name,
                      cx.dist.version,
                      RuleYaml(rule),
                      groups,
                      edits.size(),
                      SliceFixture(edits, cx.contents, cx.dist, cx.target)};
  if (Status checked = CheckDraft(draft, cx.env); !checked) return checked.error();
  return draft;
}

// When the whole draft fails its check, each edit is checked alone: those that fail are refused
// with the reason, the others drafted again together.
DraftOutcome DraftChecked(const DraftContext& cx, std::vector<ChosenEdit> edits) {
  DraftOutcome out;
  Result<SuggestedRule> whole = Draft(cx, edits);
  if (whole) return {std::move(*whole), {}};
  std::vector<ChosenEdit> kept;
  for (ChosenEdit& e : edits) {
    Result<SuggestedRule> alone = Draft(cx, {e});
    if (alone) {
      kept.push_back(std::move(e));
      continue;
    }
    for (const Accepted* a : RootsOf({e}, cx.accepted)) {
      Refuse(*a, fmt::format("its edit fails the draft's check: {}", alone.error().message), out.refused);
    }
  }
  if (kept.empty()) return out;
  Result<SuggestedRule> rest = Draft(cx, kept);
  if (rest) {
    out.rule = std::move(*rest);
    return out;
  }
  for (const Accepted* a : RootsOf(kept, cx.accepted)) {
    Refuse(*a, fmt::format("the draft fails its check: {}", rest.error().message), out.refused);
  }
  return out;
}

}  // namespace

DraftOutcome DraftRule(const env::Environment& env, const std::vector<Accepted>& accepted, const arch::Arch& target,
                       const std::vector<store::CacheKind>& kinds) {
  DraftOutcome out;
  const env::Distribution& dist = *accepted.front().owner.distribution;
  std::map<std::string, std::vector<const Accepted*>> by_file;
  for (const Accepted& a : accepted) by_file[a.owner.relative].push_back(&a);
  std::map<std::string, std::string> contents;
  std::vector<ChosenEdit> edits;
  for (const auto& [file, roots] : by_file) {
    Result<std::string> bytes = ReadInputFile(dist.root / file, kMaxSourceBytes);
    if (!bytes) {
      for (const Accepted* a : roots) Refuse(*a, bytes.error().str(), out.refused);
      continue;
    }
    std::vector<ChosenEdit> mine = EditsOfFile(roots, *bytes, target, out.refused);
    DropEditsChangingOthers(mine, roots, out.refused);
    if (!mine.empty()) contents[file] = std::move(*bytes);
    edits.insert(edits.end(), std::make_move_iterator(mine.begin()), std::make_move_iterator(mine.end()));
  }
  if (edits.empty()) return out;
  DraftOutcome checked = DraftChecked({env, dist, accepted, contents, target, kinds}, std::move(edits));
  out.rule = std::move(checked.rule);
  out.refused.insert(out.refused.end(), checked.refused.begin(), checked.refused.end());
  return out;
}

}  // namespace archpatch::suggest
