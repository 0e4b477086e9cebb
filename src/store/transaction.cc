#include "store/transaction.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include "env/safe_path.h"
#include "env/digest.h"
#include "store/pycache.h"

namespace archpatch::store {

using env::Sha256Hex;
namespace {

// Unwraps a Status inside a transaction: an I/O failure there is fatal (the journal lets the
// next run roll back), so it becomes an exception rather than a half-handled value.
void Must(const Status& s, std::string_view during) {
  if (!s) {
    throw TransactionError(fmt::format("{} failed: {}", during, s.error().message),
                           "the next 'archpatch apply' or 'archpatch revert' rolls back what was done");
  }
}

template <typename T>
T Must(Result<T> r, std::string_view during) {
  if (!r) Must(Status(r.error()), during);
  return std::move(*r);
}

Error Refuse(const std::string& path, const std::string& why) { return Error{why, Location{path, 0, 0}}; }

// Installers that hard-link package files from a shared store: writing in place there would
// change every environment linked to it.
bool SharesFiles(const std::string& installer) {
  static const char* kLinkers[] = {"uv", "conda", "mamba", "micromamba", "pixi", "pnpm", "rye", "pdm"};
  for (const char* name : kLinkers) {
    if (installer == name) return true;
  }
  return false;
}

Status CheckRuleChanges(StateDir& state, const Manifest& manifest, const std::vector<RuleChange>& changes) {
  std::map<std::string, std::string> expected_next;  // path -> hash the next rule must start from
  for (const RuleChange& change : changes) {
    if (manifest.Find(change.entry.rule)) {
      return Error{fmt::format("rule '{}' is already applied", change.entry.rule), {}};
    }
    for (const FileChange& file : change.files) {
      Status path_ok = CheckEditablePath(state, file.path);
      if (!path_ok) return path_ok;
      fs::path absolute = state.FilePath(file.path);
      FileInfo info = state.disk().Stat(absolute);
      FileInfo dir = state.disk().Stat(absolute.parent_path());
      if (!info.writable_by_mode()) return Refuse(file.path, "file is read-only; nothing was changed");
      if (!dir.writable_by_mode()) {
        return Refuse(file.path, "its directory is read-only; nothing was changed");
      }
      auto chained = expected_next.find(file.path);
      std::string current =
          chained != expected_next.end() ? chained->second : Sha256Hex(Must(state.disk().Read(absolute), "reading"));
      if (current != file.original_sha256) {
        return Refuse(file.path, fmt::format("file changed since the plan was made (SHA-256 '{}', plan "
                                             "expects '{}'); nothing was changed",
                                             current, file.original_sha256));
      }
      expected_next[file.path] = Sha256Hex(file.patched);
    }
  }
  return Ok{};
}

// Restores `file` from its backup if it still holds `expect_sha256`; returns whether it did.
bool RestoreIfStill(StateDir& state, const JournalFile& file, const TransactionOptions& options,
                    std::vector<fs::path>& pyc_removed) {
  fs::path absolute = state.FilePath(file.path);
  Result<std::string> current = state.disk().Read(absolute);
  if (!current || Sha256Hex(*current) != file.patched_sha256) return false;
  std::string original = Must(state.ReadBackup(file.backup, file.original_sha256), "reading a backup");
  Must(state.disk().Replace(absolute, original, {file.original_mtime_ns}), fmt::format("restoring '{}'", file.path));
  std::vector<fs::path> removed =
      Must(RemoveCachedBytecode(state.disk(), absolute, options.pycache_prefix), "removing bytecode");
  pyc_removed.insert(pyc_removed.end(), removed.begin(), removed.end());
  return true;
}

void RemoveTempLeftovers(StateDir& state, const std::vector<JournalFile>& files) {
  for (const JournalFile& f : files) {
    fs::path temp = TempPathFor(state.FilePath(f.path));
    if (state.disk().Stat(temp).exists()) Must(state.disk().Remove(temp), "removing a temporary file");
  }
}

// Half-written backups, journal or manifest from a run that died before its journal existed.
void RemoveStateTempLeftovers(StateDir& state) {
  for (const fs::path& dir : {state.dir(), state.dir() / "backups"}) {
    Result<std::vector<std::string>> names = state.disk().List(dir);
    if (!names) continue;
    for (const std::string& name : *names) {
      if (IsTempName(name)) Must(state.disk().Remove(dir / name), "removing a temporary file");
    }
  }
}

}  // namespace

env::EntryKind KindOnDisk(Disk& disk, const fs::path& path) {
  switch (disk.Stat(path).kind) {
    case FileKind::missing: return env::EntryKind::missing;
    case FileKind::file: return env::EntryKind::file;
    case FileKind::dir: return env::EntryKind::directory;
    case FileKind::symlink: return env::EntryKind::symlink;
    case FileKind::other: return env::EntryKind::other;
  }
  return env::EntryKind::other;
}

Result<fs::path> CheckStatePath(StateDir& state, const std::string& relative) {
  Result<fs::path> inside =
      env::CheckInside(state.site(), relative, [&](const fs::path& p) { return KindOnDisk(state.disk(), p); });
  if (!inside) return Refuse(relative, inside.error().message + "; nothing was changed");
  FileKind kind = state.disk().Stat(*inside).kind;
  if (kind != FileKind::file && kind != FileKind::missing) {
    return Refuse(relative, "not a regular file; nothing was changed");
  }
  return inside;
}

// The manifest and the journal are JSON, whose strings are Unicode: a file name that is not UTF-8
// could not be recorded, and the transaction stopped at its journal with backups written.
bool IsUtf8(const std::string& text) {
  try {
    (void)nlohmann::json(text).dump();
    return true;
  } catch (const nlohmann::json::type_error&) {
    return false;
  }
}

Status CheckEditablePath(StateDir& state, const std::string& relative) {
  if (!IsUtf8(relative)) {
    return Refuse(relative,
                  "the path is not UTF-8 and archpatch's manifest (JSON) cannot record it; rename the file or "
                  "edit it by hand; nothing was changed");
  }
  Result<fs::path> inside = CheckStatePath(state, relative);
  if (!inside) return inside.error();
  if (!state.disk().Stat(*inside).exists()) return Refuse(relative, "no such file; nothing was changed");
  return Ok{};
}

Result<ApplyOutcome> ApplyChanges(StateDir& state, std::vector<RuleChange> changes, const TransactionOptions& options) {
  Result<Manifest> manifest = state.LoadManifestForTransaction();
  if (!manifest) return manifest.error();
  if (Status ok = CheckRuleChanges(state, *manifest, changes); !ok) return ok.error();

  Must(state.Create(), "creating .archpatch");
  Journal journal{"apply", NewTransactionId(), UtcNow(), {}, {}};
  ApplyOutcome outcome;
  // Step 1: backups, and the records that point at them. When two rules of one apply edit the
  // same file, the second one's original is the first one's result.
  std::map<std::string, std::string> bytes_before;
  for (RuleChange& change : changes) {
    journal.rules.push_back(change.entry.rule);
    for (const FileChange& file : change.files) {
      fs::path absolute = state.FilePath(file.path);
      auto before = bytes_before.find(file.path);
      std::optional<int64_t> mtime;  // only the file's own: a second rule's original is the first's output
      if (before == bytes_before.end()) {
        before = bytes_before.emplace(file.path, Must(state.disk().Read(absolute), "reading")).first;
        mtime = state.disk().Stat(absolute).mtime_ns;
      }
      FileRecord record{file.path,
                        file.original_sha256,
                        Sha256Hex(file.patched),
                        Must(state.SaveBackup(before->second), "writing a backup"),
                        state.disk().Stat(absolute).nlink,
                        file.edits,
                        file.blast_radius,
                        mtime};
      before->second = file.patched;
      journal.files.push_back(
          {record.path, record.original_sha256, record.patched_sha256, record.backup, record.original_mtime_ns});
      change.entry.files.push_back(std::move(record));
    }
  }
  // Step 2: the journal.
  Must(state.SaveJournal(journal), "writing the journal");
  // Step 3: the files, one by one.
  for (const RuleChange& change : changes) {
    for (const FileChange& file : change.files) {
      fs::path absolute = state.FilePath(file.path);
      Must(state.disk().Replace(absolute, file.patched), fmt::format("writing '{}'", file.path));
      std::vector<fs::path> removed =
          Must(RemoveCachedBytecode(state.disk(), absolute, options.pycache_prefix), "removing bytecode");
      outcome.pyc_removed.insert(outcome.pyc_removed.end(), removed.begin(), removed.end());
    }
  }
  // Step 4: caches; step 5: the manifest commits the transaction.
  for (RuleChange& change : changes) {
    Entry& entry = change.entry;
    entry.transaction = journal.transaction;
    entry.applied_at = journal.started_at;
    entry.archpatch_version = ArchpatchVersion();
    std::vector<fs::path> changed;
    for (const FileRecord& f : entry.files) changed.push_back(state.FilePath(f.path));
    if (options.clear_caches) entry.caches_cleared = options.clear_caches(entry, changed);
    for (const FileRecord& f : entry.files) {
      if (f.links > 1) {
        outcome.notes.push_back(
            fmt::format("'{}' had {} hard links; it was replaced by a new file, the "
                        "other links keep the original bytes",
                        f.path, f.links));
      }
    }
    if (SharesFiles(entry.installer)) {
      outcome.notes.push_back(
          fmt::format("'{}' was installed by '{}', which may share files between "
                      "environments; archpatch wrote new files instead of editing "
                      "shared ones",
                      entry.distribution, entry.installer));
    }
    manifest->entries.push_back(entry);
    outcome.recorded.push_back(entry);
  }
  Must(state.SaveManifest(*manifest), "writing the manifest");
  // Step 6.
  Must(state.RemoveJournal(), "removing the journal");
  return outcome;
}

const char* const kRecoveryWayOut =
    "'archpatch revert --force --all' (or --force with the --rule/--package you mean) puts back every "
    "file whose backup is intact, sets the journal aside as .archpatch/journal.json.damaged, then "
    "reverts what you asked; 'archpatch verify' then lists the files that still differ from their "
    "package's RECORD (reinstall those packages)";

namespace {

// Why one journaled file cannot be rolled back; empty when it can.
std::string ProblemWith(StateDir& state, const JournalFile& f) {
  Result<fs::path> path = CheckStatePath(state, f.path);
  if (!path) return fmt::format("{}: {}", state.journal_path().string(), path.error().str());
  Result<std::string> now = state.disk().Read(*path);
  if (!now || Sha256Hex(*now) != f.patched_sha256) return "";  // nothing to put back
  Result<std::string> backup = state.ReadBackup(f.backup, f.original_sha256);
  return backup ? "" : fmt::format("{}: {}", f.path, backup.error().message);
}

}  // namespace

std::vector<std::string> RecoveryProblems(StateDir& state, const Journal& journal) {
  std::vector<std::string> problems;
  for (const JournalFile& f : journal.files) {
    if (std::string why = ProblemWith(state, f); !why.empty()) problems.push_back(why);
  }
  return problems;
}

namespace {

// The journal could not be read: keep its bytes for whoever investigates, then drop it.
void SetJournalAside(StateDir& state, RecoveryOutcome& outcome, const std::string& why) {
  Result<std::string> bytes = state.disk().Read(state.journal_path());
  if (bytes) Must(state.disk().Replace(state.dir() / "journal.json.damaged", *bytes), "setting the journal aside");
  Must(state.RemoveJournal(), "removing the journal");
  outcome.found = true;
  outcome.set_aside = why;
  spdlog::warn("set aside a damaged journal: {}", why);
}

// The files of `journal` a rollback may touch: all of them, or under force those without a problem.
std::vector<JournalFile> RollbackFiles(StateDir& state, const Journal& journal, const TransactionOptions& options,
                                       RecoveryOutcome& outcome) {
  std::vector<std::string> problems;
  std::vector<JournalFile> files;
  for (const JournalFile& f : journal.files) {
    std::string why = ProblemWith(state, f);
    if (why.empty()) {
      files.push_back(f);
    } else {
      problems.push_back(why);
    }
  }
  if (problems.empty()) return files;
  if (!options.force_recovery) {
    throw Fatal(
        fmt::format("cannot roll back the half-done {} of {} (transaction {}): {}; nothing was "
                    "changed. Way out: {}",
                    journal.operation, fmt::join(journal.rules, ", "), journal.transaction, fmt::join(problems, "; "),
                    kRecoveryWayOut));
  }
  outcome.skipped = problems;
  outcome.set_aside = "some files could not be put back";
  return files;
}

void RollBack(StateDir& state, const Journal& journal, std::vector<JournalFile> files, Manifest& manifest,
              const TransactionOptions& options, RecoveryOutcome& outcome) {
  RemoveTempLeftovers(state, files);
  // Undo an apply newest first; a revert journal is already in undo order.
  if (journal.operation == "apply") std::reverse(files.begin(), files.end());
  std::vector<fs::path> pyc;
  for (const JournalFile& f : files) {
    if (RestoreIfStill(state, f, options, pyc)) {
      outcome.restored.push_back(f.path);
      continue;
    }
    Result<std::string> now = state.disk().Read(state.FilePath(f.path));
    if (!now || Sha256Hex(*now) != f.original_sha256) outcome.left.push_back(f.path);
  }
  if (journal.operation != "revert") return;
  // The revert's entries are done, except one with a file that could not be put back: it stays
  // recorded, so that status still shows that file as patched.
  std::set<std::string> skipped;
  for (const JournalFile& f : journal.files) skipped.insert(f.path);
  for (const JournalFile& f : files) skipped.erase(f.path);
  std::set<std::string> done(journal.rules.begin(), journal.rules.end());
  std::erase_if(manifest.entries, [&](const Entry& e) {
    return done.count(e.rule) > 0 &&
           std::none_of(e.files.begin(), e.files.end(), [&](const FileRecord& r) { return skipped.count(r.path) > 0; });
  });
  Must(state.SaveManifest(manifest), "writing the manifest");
}

}  // namespace

Result<RecoveryOutcome> Recover(StateDir& state, const TransactionOptions& options) {
  RecoveryOutcome outcome;
  if (!state.Exists()) return outcome;
  Result<std::optional<Journal>> pending = state.LoadJournal();
  if (!pending) {
    if (!options.force_recovery) {
      return Error{fmt::format("{}; nothing was changed. Way out: {}", pending.error().message, kRecoveryWayOut), {}};
    }
    RemoveStateTempLeftovers(state);
    SetJournalAside(state, outcome, pending.error().message);
    return outcome;
  }
  if (!pending->has_value()) {
    RemoveStateTempLeftovers(state);
    return outcome;
  }
  const Journal& journal = **pending;
  Result<Manifest> manifest = state.LoadManifest();
  if (!manifest) return manifest.error();
  outcome.found = true;
  outcome.operation = journal.operation;
  outcome.transaction = journal.transaction;
  outcome.started_at = journal.started_at;
  outcome.rules = journal.rules;
  bool committed = std::any_of(manifest->entries.begin(), manifest->entries.end(),
                               [&](const Entry& e) { return e.transaction == journal.transaction; });
  if (journal.operation == "apply" && committed) {
    outcome.committed = true;
    std::vector<JournalFile> safe;
    for (const JournalFile& f : journal.files) {
      if (CheckStatePath(state, f.path)) safe.push_back(f);
    }
    RemoveStateTempLeftovers(state);
    RemoveTempLeftovers(state, safe);
  } else {
    std::vector<JournalFile> files = RollbackFiles(state, journal, options, outcome);  // may refuse
    RemoveStateTempLeftovers(state);
    RollBack(state, journal, std::move(files), *manifest, options, outcome);
  }
  if (!outcome.set_aside.empty()) {
    Must(state.disk().Replace(state.dir() / "journal.json.damaged", ToJson(journal).dump(2) + "\n"),
         "setting the journal aside");
  }
  Must(state.RemoveJournal(), "removing the journal");
  spdlog::info("recovered transaction {} ({})", journal.transaction, journal.operation);
  return outcome;
}

}  // namespace archpatch::store
