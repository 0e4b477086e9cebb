// The known-unsafe list (rules/known-unsafe.yaml, docs/rules.md "The known-unsafe list"): gates
// whose code cannot run on some arches however the gate is edited (SM100-only cubins loaded at
// run time, tcgen05/wgmma kernels compiled elsewhere). audit marks the root causes it names
// "do not widen: ..., because ..."; apply refuses a rule edit that changes one (apply/unsafe_edits.h).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "arch/arch.h"
#include "gate/finding.h"
#include "gate/group.h"
#include "plan/rule_coverage.h"
#include "util/result.h"

namespace archpatch::plan {

// One gate (or all gates of a file, of a scope) an entry covers.
struct UnsafePlace {
  std::string file;   // glob matched against the end of a path at '/' boundaries (EditFileMatches)
  std::string scope;  // "" = anywhere in the file; else the scope or anything nested inside it
  std::string text;   // "" = any gate; else a piece of the gate's text
};

struct KnownUnsafe {
  std::string id;
  std::string distribution;  // normalised; "" = any
  std::vector<arch::Arch> targets;
  std::string what;
  std::string because;
  std::string reported;
  std::vector<UnsafePlace> places;
};

// A gate as a scanner reports it: its file (any prefix), enclosing scope chain, and text.
struct GateView {
  std::string_view file;
  std::string_view scope;
  std::string_view text;
};

// Parses the YAML text of a known-unsafe file; errors carry file:line:column.
Result<std::vector<KnownUnsafe>> ParseKnownUnsafe(std::string_view text, const std::string& file);
Result<std::vector<KnownUnsafe>> LoadKnownUnsafe(const std::filesystem::path& file);

// rules/known-unsafe.yaml of archpatch's data folder, read once. No data folder, or one without
// the file, gives an empty list (a warning, a debug line); a file that does not parse is an error.
const Result<std::vector<KnownUnsafe>>& ShippedKnownUnsafe();

// The first entry that covers `gate` for `target` (a/f variants of the same number match), with
// `distribution` (normalised) when the caller knows it ("" = unknown: not checked). nullptr: none.
const KnownUnsafe* MatchKnownUnsafe(const std::vector<KnownUnsafe>& list, const GateView& gate,
                                    const arch::Arch& target, std::string_view distribution = "");
// The same, with the file globs' answers kept in `globs` across calls.
const KnownUnsafe* MatchKnownUnsafe(const std::vector<KnownUnsafe>& list, const GateView& gate,
                                    const arch::Arch& target, std::string_view distribution, FileGlobMatcher& globs);

// "do not widen: WHAT, because BECAUSE" — the words audit and apply print.
std::string DoNotWiden(const KnownUnsafe& entry);

// Per finding, the entry of the list that covers it for `target`, or null. It reads only the
// findings' file, scope and text: the audit runs it beside the grouping and the prebuilt links
// (cmd_audit.cc), which write other fields.
std::vector<const KnownUnsafe*> MatchEachFinding(const std::vector<Finding>& findings,
                                                 const std::vector<KnownUnsafe>& list, const arch::Arch& target);
// Per group, the entry of its root or, failing that, of its first place that has one.
std::vector<const KnownUnsafe*> FindKnownUnsafe(const std::vector<gate::Group>& groups,
                                                const std::vector<const KnownUnsafe*>& per_finding);
// Marks each group FindKnownUnsafe found an entry for (gate::Group::known_unsafe) and makes its
// widen verdict widen-unsafe, the entry's reason first.
void ApplyKnownUnsafe(std::vector<gate::Group>& groups, const std::vector<const KnownUnsafe*>& entries);
// The three, one after the other (suggest marks its groups so).
void MarkKnownUnsafe(std::vector<gate::Group>& groups, const std::vector<Finding>& findings,
                     const std::vector<KnownUnsafe>& list, const arch::Arch& target);
// MatchEachFinding with the shipped list (ShippedKnownUnsafe). A list that does not parse is its
// error, for the caller to warn about: the audit still reports every gate.
Result<std::vector<const KnownUnsafe*>> MatchShippedKnownUnsafe(const std::vector<Finding>& findings,
                                                                const arch::Arch& target);

}  // namespace archpatch::plan
