#include "apply/apply.h"

#include <algorithm>

#include <fmt/format.h>

#include "apply/drift.h"
#include "apply/dry_run_disk.h"
#include "apply/snapshot.h"
#include "plan/planner.h"
#include "store/state_dir.h"

namespace archpatch::apply {
namespace {

namespace fs = std::filesystem;

// The path of a rule's file relative to where .archpatch/ lives.
std::string StorePath(const plan::EditPlan& p, const plan::RulePlan& rule, const plan::FilePlan& file) {
  fs::path relative = (fs::path(rule.root) / file.path).lexically_relative(p.root);
  if (relative.empty() || *relative.begin() == "..") {
    throw Fatal(
        fmt::format("'{}' lies outside '{}'; archpatch keeps one manifest per site-packages", file.path, p.root));
  }
  return relative.generic_string();
}

// The store's change for one rule: the staged bytes, each edit with its span, the blast radius
// the assessment computed.
store::RuleChange ToChange(const plan::EditPlan& p, const plan::RulePlan& rule, const StagedPlan& staged,
                           const PlanAssessment& assessment, const env::Environment& env) {
  store::RuleChange change;
  store::Entry& e = change.entry;
  e.rule = rule.rule_id;
  e.rule_sha256 = rule.rule_sha256;
  e.distribution = rule.distribution;
  e.version = rule.version;
  e.targets = rule.targets;
  e.caches = rule.caches;
  if (const env::Distribution* d = env.Find(rule.distribution)) e.installer = d->installer;
  for (const plan::FilePlan& file : rule.files) {
    const StagedFile* s = staged.Find(rule, file);
    store::FileChange fc{StorePath(p, rule, file), file.sha256_before, s->after, {}, assessment.RadiusOf(rule, file)};
    for (const plan::TextEdit& edit : file.edits) {
      fc.edits.push_back({edit.line, edit.before, edit.after, true, edit.begin, edit.end});
    }
    change.files.push_back(std::move(fc));
  }
  return change;
}

// A rule the manifest already records; refused when its files changed since.
RuleReport AlreadyApplied(store::StateDir& state, const store::Manifest& manifest, const store::Entry& entry) {
  if (!StillAsLeft(state, manifest, entry)) {
    throw Fatal(
        fmt::format("rule '{}' is recorded as applied but its files changed since; run "
                    "'archpatch revert --rule {}' first (nothing was changed)",
                    entry.rule, entry.rule));
  }
  return {entry.rule,
          RuleOutcome::already_applied,
          fmt::format("rule '{}' is already applied (since {}): nothing to do", entry.rule, entry.applied_at),
          entry.files,
          {}};
}

RuleReport Satisfied(const plan::RulePlan& rule) {
  return {rule.rule_id,
          RuleOutcome::satisfied,
          fmt::format("rule '{}' is already satisfied by {} {}: nothing to do", rule.rule_id, rule.distribution,
                      rule.version),
          {},
          {}};
}

RuleReport Changed(const store::Entry& e, bool dry_run) {
  RuleReport r{e.rule, RuleOutcome::changed, "", e.files, e.caches_cleared};
  if (dry_run) {
    r.message = fmt::format("rule '{}' would change {} file(s) (dry run: nothing written)", e.rule, e.files.size());
    return r;
  }
  std::string caches;
  for (const store::CacheRecord& c : e.caches_cleared) {
    caches += fmt::format("; cleared cache '{}' ({} file(s), {})", c.name, c.files, HumanBytes(c.bytes));
  }
  r.message = fmt::format("applied rule '{}' to {} {}: {} file(s) changed{}", e.rule, e.distribution, e.version,
                          e.files.size(), caches);
  return r;
}

std::string PlanDiff(const StagedPlan& staged) {
  std::string diff;
  for (const StagedFile& f : staged.files) diff += plan::UnifiedDiff(f.file->path, f.before, f.after);
  return diff;
}

// Plans the rules the manifest does not record yet, reading through the snapshot; the others are
// reported as already applied (their old text is gone).
plan::EditPlan PlanUnapplied(const ApplyRequest& req, store::StateDir& state, const store::Manifest& manifest,
                             Snapshot& snapshot, std::vector<RuleReport>& reports) {
  std::vector<rules::Rule> left;
  for (const rules::Rule& rule : req.rules) {
    if (const store::Entry* entry = manifest.Find(rule.id)) {
      reports.push_back(AlreadyApplied(state, manifest, *entry));
    } else {
      left.push_back(rule);
    }
  }
  plan::EditPlan p;
  p.root = req.env.site_packages.string();
  if (left.empty()) return p;
  plan::PlanOptions options;
  options.read = snapshot.Reader();
  Result<plan::EditPlan> planned = plan::PlanRules(left, req.env, options);
  if (!planned) throw Fatal(planned.error().str() + "; nothing was changed");
  return std::move(*planned);
}

// After a failed transaction: what is on disk, rolled back at once where possible.
ApplyFailure RollBack(store::StateDir& state, const store::TransactionOptions& options, const std::string& cause) {
  ApplyFailure f;
  Result<std::optional<store::Journal>> journal = state.LoadJournal();
  Result<store::RecoveryOutcome> r = Error{"", {}};
  try {
    r = store::Recover(state, options);
  } catch (const store::TransactionError& e) {
    r = Error{e.cause(), {}};
  }
  if (r) {
    f.restored = r->restored;
    f.message = r->restored.empty()
                    ? fmt::format("{}; nothing was changed", cause)
                    : fmt::format("{}; rolled back: {} file(s) put back from their backups, nothing is changed", cause,
                                  r->restored.size());
    return f;
  }
  f.on_disk = OnDisk::half_patched;
  if (journal && journal->has_value()) {
    for (const store::JournalFile& jf : (*journal)->files) {
      if (StateOf(state, jf.path, jf.original_sha256, jf.patched_sha256) == FileState::patched) {
        f.patched.push_back(jf.path);
      }
    }
  }
  f.message = fmt::format(
      "{}; rolling back failed too ({}): {} file(s) are still patched and the journal is kept: "
      "the next 'archpatch apply' or 'archpatch revert' rolls them back",
      cause, r.error().str(), f.patched.size());
  return f;
}

// Whether the manifest records every rule of `changes` (the transaction committed).
bool Committed(store::StateDir& state, const std::vector<std::string>& rules, std::vector<store::Entry>& entries) {
  Result<store::Manifest> m = state.LoadManifest();
  if (!m) return false;
  for (const std::string& id : rules) {
    const store::Entry* e = m->Find(id);
    if (!e) return false;
    entries.push_back(*e);
  }
  return true;
}

// Runs the transaction; a failure in it is rolled back (or reported as half done), a failure to
// drop the journal after the commit is a note: the rules are applied.
void Transact(store::StateDir& state, std::vector<store::RuleChange> changes, const store::TransactionOptions& options,
              ApplyReport& report) {
  std::vector<std::string> rules;
  for (const store::RuleChange& c : changes) rules.push_back(c.entry.rule);
  std::vector<store::Entry> recorded;
  try {
    Result<store::ApplyOutcome> out = store::ApplyChanges(state, std::move(changes), options);
    if (!out) throw Fatal(out.error().str());
    recorded = out->recorded;
    report.notes.insert(report.notes.end(), out->notes.begin(), out->notes.end());
  } catch (const store::TransactionError& e) {
    if (!Committed(state, rules, recorded)) {
      report.failure = RollBack(state, options, e.cause());
      return;
    }
    Result<store::RecoveryOutcome> cleaned = Error{"", {}};
    try {
      cleaned = store::Recover(state, options);
    } catch (const store::TransactionError& again) {
      cleaned = Error{again.cause(), {}};
    }
    report.notes.push_back(fmt::format("{} after the rules were applied and recorded; {}", e.cause(),
                                       cleaned ? "the journal left behind was removed on a second try"
                                               : "the journal is left behind; the next archpatch run removes it"));
  }
  for (const store::Entry& e : recorded) {
    auto r =
        std::find_if(report.rules.begin(), report.rules.end(), [&](const RuleReport& x) { return x.id == e.rule; });
    *r = Changed(e, report.dry_run);
  }
}

void Run(store::Disk& disk, const fs::path& root, const ApplyRequest& req, ApplyReport& report) {
  store::StateDir state(disk, root);
  std::vector<std::string> cache_notes;
  const store::TransactionOptions options = MakeTransactionOptions(disk, req.store, &cache_notes);
  Result<store::RecoveryOutcome> recovered = store::Recover(state, options);
  if (!recovered) throw Fatal(fmt::format("cannot roll back the half-done transaction: {}", recovered.error().str()));
  report.recovered = std::move(*recovered);
  Result<store::Manifest> manifest = state.LoadManifest();
  if (!manifest) throw Fatal(manifest.error().str());

  Snapshot snapshot(disk);
  report.plan = req.plan ? *req.plan : PlanUnapplied(req, state, *manifest, snapshot, report.rules);
  plan::EditPlan pending{report.plan.root, {}};  // the rules to change
  for (const plan::RulePlan& rule : report.plan.rules) {
    if (const store::Entry* entry = manifest->Find(rule.rule_id)) {
      report.rules.push_back(AlreadyApplied(state, *manifest, *entry));
    } else if (rule.satisfied || rule.files.empty()) {
      report.rules.push_back(Satisfied(rule));
    } else {
      // Until the transaction records it (Transact).
      report.rules.push_back(
          {rule.rule_id, RuleOutcome::not_applied, fmt::format("rule '{}' was not applied", rule.rule_id), {}, {}});
      pending.rules.push_back(rule);
    }
  }
  const StagedPlan staged = StagePlan(pending, snapshot);
  CheckOptions checks = req.checks;
  checks.dry_run = report.dry_run;
  report.checks = CheckPlan(staged, snapshot, checks);
  if (req.want_diff) report.diff = PlanDiff(staged);
  std::vector<store::RuleChange> changes;
  for (const plan::RulePlan& rule : pending.rules) {
    changes.push_back(ToChange(pending, rule, staged, report.checks.assessment, req.env));
  }
  if (!changes.empty()) Transact(state, std::move(changes), options, report);
  report.notes.insert(report.notes.end(), cache_notes.begin(), cache_notes.end());
}

}  // namespace

const char* Name(OnDisk s) {
  switch (s) {
    case OnDisk::unchanged: return "unchanged";
    case OnDisk::applied: return "applied";
    case OnDisk::half_patched: return "half-patched";
  }
  return "";
}

bool ApplyReport::changed() const {
  if (failure) return failure->on_disk != OnDisk::unchanged;
  return std::any_of(rules.begin(), rules.end(), [](const RuleReport& r) { return r.outcome == RuleOutcome::changed; });
}

ApplyReport Apply(store::Disk& disk, Locker& locker, const ApplyRequest& request) {
  const bool dry_run = request.dry_run == DryRun::yes;
  const fs::path root = request.plan ? fs::path(request.plan->root) : request.env.site_packages;
  // Writers lock before recovery and planning, so a second apply plans on what the first left.
  Result<std::unique_ptr<HeldLock>> lock = locker.Lock(root, dry_run ? LockMode::shared : LockMode::exclusive);
  if (!lock) throw Fatal(lock.error().str());
  ApplyReport report;
  report.dry_run = dry_run;
  if (dry_run) {
    DryRunDisk dry(disk);
    Run(dry, root, request, report);
  } else {
    Run(disk, root, request, report);
  }
  return report;
}

}  // namespace archpatch::apply
