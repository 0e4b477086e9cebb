// Apply: plan rules (or take a reviewed plan), check the plan, and execute it through the
// store's transaction, under the lock discipline of apply/lock.h. A dry run (--dry-run, --check)
// is the same code on a DryRunDisk: it recovers, plans, checks and runs the transaction in
// memory, so what it reports is what the real run would do.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "apply/checks.h"
#include "apply/context.h"
#include "apply/lock.h"
#include "env/environment.h"
#include "plan/edit_plan.h"
#include "rules/rule.h"
#include "store/disk.h"
#include "store/transaction.h"

namespace archpatch::apply {

enum class DryRun { no, yes };

struct ApplyRequest {
  std::vector<rules::Rule> rules;      // planned once the lock is held
  std::optional<plan::EditPlan> plan;  // or: a reviewed plan (--plan FILE), checked file by file
  env::Environment env;
  DryRun dry_run = DryRun::no;
  CheckOptions checks;  // its dry_run follows `dry_run`
  StoreOptions store;
  bool want_diff = false;  // compute the unified diff of the plan
};

enum class RuleOutcome {
  changed,          // written (a dry run: would be)
  already_applied,  // the manifest records it and its files are as it left them
  satisfied,        // every gate already admits the targets: nothing to do
  not_applied,      // its transaction failed (ApplyReport::failure says what is on disk)
};

struct RuleReport {
  std::string id;
  RuleOutcome outcome = RuleOutcome::satisfied;
  std::string message;
  std::vector<store::FileRecord> files;  // as recorded (a dry run: as they would be)
  std::vector<store::CacheRecord> caches_cleared;
};

// What is on disk after a transaction failed part-way (item: truthful reports).
enum class OnDisk {
  unchanged,    // the failure came before any file was written, or every file was put back
  applied,      // the transaction had committed; only its journal could not be removed
  half_patched  // some files are patched and could not be rolled back; the journal is kept
};
const char* Name(OnDisk s);

struct ApplyFailure {
  std::string message;  // what failed and what is on disk now, in plain words
  OnDisk on_disk = OnDisk::unchanged;
  std::vector<std::string> restored;  // files put back from their backups
  std::vector<std::string> patched;   // files left patched (half_patched)
};

struct ApplyReport {
  bool dry_run = false;
  plan::EditPlan plan;  // what was planned (--dry-run --json prints it)
  PlanChecks checks;
  std::vector<RuleReport> rules;  // in the order given
  std::vector<std::string> notes;
  store::RecoveryOutcome recovered;  // a half-done transaction rolled back first
  std::string diff;                  // when want_diff
  std::optional<ApplyFailure> failure;

  // Whether the environment differs from before the run (a dry run: would).
  bool changed() const;
};

// Refusals before anything is written throw Fatal (UsageError for bad input); a failure during
// the transaction is rolled back at once where it can be, and reported in `failure`.
ApplyReport Apply(store::Disk& disk, Locker& locker, const ApplyRequest& request);

}  // namespace archpatch::apply
