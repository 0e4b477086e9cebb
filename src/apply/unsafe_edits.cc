#include "apply/unsafe_edits.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "scan/scan.h"
#include "util/result.h"

namespace archpatch::apply {
namespace {

std::vector<arch::Arch> Targets(const plan::RulePlan& rule) {
  std::vector<arch::Arch> out;
  for (const std::string& name : rule.targets) {
    if (Result<arch::Arch> a = arch::ParseArch(name)) out.push_back(*a);
  }
  return out;
}

// The refusals of one staged file: its gates as planned against, the ones the list covers for
// one of the rule's targets, and the edits that touch them.
void RefusalsOf(const StagedFile& file, const std::vector<plan::KnownUnsafe>& list, std::vector<std::string>& out) {
  const std::vector<arch::Arch> targets = Targets(*file.rule);
  Result<std::vector<Finding>> gates = scan::ScanFileGates(file.file->path, file.before, targets, cuda::MacroEnv{});
  if (!gates) return;  // planning scanned these bytes already; a file it could not read has no gate
  for (const Finding& gate : *gates) {
    const plan::KnownUnsafe* entry = nullptr;
    for (const arch::Arch& t : targets) {
      entry = plan::MatchKnownUnsafe(list, {file.file->path, gate.scope, gate.text}, t, file.rule->distribution);
      if (entry) break;
    }
    if (!entry) continue;
    for (const plan::TextEdit& edit : file.file->edits) {
      if (!EditTouches(edit, gate.span)) continue;
      out.push_back(fmt::format("{}:{}:{}: rule '{}' edit {} changes '{}': {} (known-unsafe {})", file.file->path,
                                edit.line, edit.column, file.rule->rule_id, edit.edit_index + 1, gate.text,
                                plan::DoNotWiden(*entry), entry->id));
    }
  }
}

}  // namespace

bool EditTouches(const plan::TextEdit& edit, const ByteSpan& gate) {
  const size_t end = std::max(edit.end, edit.begin + 1);
  return edit.begin < gate.end && gate.begin < end;
}

std::vector<std::string> UnsafeEdits(const StagedPlan& staged, const std::vector<plan::KnownUnsafe>& list) {
  std::vector<std::string> out;
  if (list.empty()) return out;
  for (const StagedFile& file : staged.files) RefusalsOf(file, list, out);
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

void RefuseKnownUnsafeEdits(const StagedPlan& staged) {
  const Result<std::vector<plan::KnownUnsafe>>& list = plan::ShippedKnownUnsafe();
  if (!list) throw Fatal(fmt::format("cannot read the known-unsafe list: {}; nothing was changed", list.error().str()));
  const std::vector<std::string> refused = UnsafeEdits(staged, *list);
  if (refused.empty()) return;
  throw Fatal(
      fmt::format("refusing to apply: the plan widens gates that must not be widened (nothing was changed; "
                  "no option overrides this, see docs/rules.md \"The known-unsafe list\"):\n  {}",
                  fmt::join(refused, "\n  ")));
}

}  // namespace archpatch::apply
