// Transactions: apply and revert as all-or-nothing changes to an environment.
//
// Order of writes (each one a step a crash may interrupt):
//   1. each original file's bytes -> .archpatch/backups/<sha256> (fsynced)
//   2. .archpatch/journal.json: every file, its original and patched hash, its backup
//   3. each file replaced atomically (temp file, fsync, rename, fsync dir), its stale pycs removed
//   4. JIT caches cleared (through the caller's callback)
//   5. manifest.json rewritten atomically: the transaction is committed
//   6. journal.json removed
// Recover() looks at a journal left behind: if the manifest already has the transaction (an
// apply cut short after step 5), it only drops the journal; otherwise it puts back, from the
// backups, every file whose hash is still the one the transaction wrote, then completes the
// bookkeeping (an interrupted revert drops its entries). Running it twice is harmless.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "store/manifest.h"
#include "store/state_dir.h"

namespace archpatch::store {

// An I/O failure in the middle of a transaction: what failed (`cause`), with the advice that the
// journal lets the next run roll back. The caller may roll back at once (apply/transact.h).
class TransactionError : public Fatal {
 public:
  TransactionError(const std::string& cause, const std::string& advice) : Fatal(cause + "; " + advice), cause_(cause) {}
  const std::string& cause() const { return cause_; }

 private:
  std::string cause_;
};

// One file's new bytes, as planned.
struct FileChange {
  std::string path;             // relative to site-packages
  std::string original_sha256;  // what the plan was made against; refused if the file differs
  std::string patched;          // the complete new bytes, exactly as written
  std::vector<EditRecord> edits;
  nlohmann::json blast_radius;
};

// One rule's change: `entry` carries the rule's identity (rule, rule_sha256, distribution,
// version, installer, targets, caches); the transaction fills in files, time and id.
struct RuleChange {
  Entry entry;
  std::vector<FileChange> files;
};

// Clears the caches an entry names for the files it changed (absolute paths), returns what it
// freed. Called after the files are written and before the manifest commits.
using CacheClearer = std::function<std::vector<CacheRecord>(const Entry& entry, const std::vector<fs::path>& changed)>;

struct TransactionOptions {
  std::optional<fs::path> pycache_prefix;  // $PYTHONPYCACHEPREFIX
  CacheClearer clear_caches;               // empty: caches are left alone (--no-clear-cache)
  // revert --force: a half-done transaction that cannot be rolled back whole (a damaged or
  // missing backup, a path refused by the path-safety policy, a journal.json that does not
  // parse) is rolled back as far as it can be, and its journal is set aside as
  // journal.json.damaged. Without it such a rollback is refused before anything is written.
  bool force_recovery = false;
};

// What to run when a half-done transaction cannot be rolled back whole (docs/manifest.md).
extern const char* const kRecoveryWayOut;

struct ApplyOutcome {
  std::vector<Entry> recorded;
  std::vector<std::string> notes;  // hard links broken, installers that share files
  std::vector<fs::path> pyc_removed;
};

// Checks everything first (paths inside site-packages, no symlinks, regular writable files whose
// hash is the planned original, rules not yet applied); refuses with nothing written if any check
// fails. Then runs the steps above.
Result<ApplyOutcome> ApplyChanges(StateDir& state, std::vector<RuleChange> changes, const TransactionOptions& options);

struct RecoveryOutcome {
  bool found = false;  // a journal was there
  std::string operation;
  std::string transaction;
  std::string started_at;
  std::vector<std::string> rules;
  bool committed = false;             // the manifest already recorded it
  std::vector<std::string> restored;  // files put back from backups
  std::vector<std::string> left;      // files changed by someone else since; not touched
  // Forced recovery only: "path: why" for each file it could not put back, and why the journal
  // was set aside (empty when it was not).
  std::vector<std::string> skipped;
  std::string set_aside;
};

// Rolls back (or completes) a transaction a journal says was left half done. Everything a
// rollback would read or write is checked first (RecoveryProblems); a problem refuses the whole
// rollback with nothing written, unless options.force_recovery.
Result<RecoveryOutcome> Recover(StateDir& state, const TransactionOptions& options);

// Why the rollback of `journal` cannot be done whole, one "path: why" per file: a path the
// path-safety policy refuses, or a backup that is missing or does not have its hash. Only files
// that still hold the bytes the transaction wrote need their backup. Empty: it can.
std::vector<std::string> RecoveryProblems(StateDir& state, const Journal& journal);

// Which entries to revert.
struct RevertRequest {
  std::vector<std::string> rules;
  std::vector<std::string> packages;  // normalised distribution names
  bool all = false;
  bool force = false;  // overwrite files changed since apply
  // Whether the file's current bytes (sha256) are what the installed distribution's RECORD says:
  // a package upgrade replaced them. Empty: never.
  std::function<bool(const Entry&, const FileRecord&, const std::string& current_sha256)> matches_record;
};

enum class RevertVerdict { reverted, retired, refused };
const char* Name(RevertVerdict v);

struct RevertItem {
  std::string rule;
  std::string distribution;
  RevertVerdict verdict = RevertVerdict::refused;
  std::string reason;
  std::vector<std::string> restored;
  std::vector<CacheRecord> caches_cleared;
};

struct RevertOutcome {
  std::vector<RevertItem> items;  // in the order they were undone (newest first)
  std::vector<fs::path> pyc_removed;
};

// Errors: an unknown rule or package. Entries whose files changed are `refused` items (nothing
// written for them) unless `force`. Damaged state (manifest.json unreadable, a journal pending,
// a backup missing or damaged, a path refused by the path-safety policy) throws Fatal (exit 3)
// before the first write: a revert never stops half way for a reason it could have seen.
Result<RevertOutcome> RevertEntries(StateDir& state, const RevertRequest& request, const TransactionOptions& options);

// The one path-safety policy (env/safe_path.h: relative, no "..", not into .archpatch, no
// symlink at any component) checked through `state`'s Disk; the path may name a missing file,
// anything else than a regular file is refused. Returns the absolute path.
Result<fs::path> CheckStatePath(StateDir& state, const std::string& relative);
// CheckStatePath, and the file must exist: what apply may edit.
Status CheckEditablePath(StateDir& state, const std::string& relative);

}  // namespace archpatch::store
