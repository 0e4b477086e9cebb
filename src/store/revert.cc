// RevertEntries: the undo half of store/transaction.h.
#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "env/digest.h"
#include "store/pycache.h"
#include "store/transaction.h"

namespace archpatch::store {

using env::Sha256Hex;
namespace {

void Must(const Status& s, std::string_view during) {
  if (!s) {
    throw TransactionError(fmt::format("{} failed: {}", during, s.error().message),
                           "the next 'archpatch revert' completes the revert");
  }
}

template <typename T>
T Must(Result<T> r, std::string_view during) {
  if (!r) Must(Status(r.error()), during);
  return std::move(*r);
}

Result<std::vector<const Entry*>> Select(const Manifest& manifest, const RevertRequest& request) {
  std::set<const Entry*> chosen;
  if (request.all) {
    for (const Entry& e : manifest.entries) chosen.insert(&e);
  }
  for (const std::string& rule : request.rules) {
    const Entry* e = manifest.Find(rule);
    if (!e) return Error{fmt::format("rule '{}' is not applied in this environment", rule), {}};
    chosen.insert(e);
  }
  for (const std::string& package : request.packages) {
    size_t before = chosen.size();
    bool any = false;
    for (const Entry& e : manifest.entries) {
      if (e.distribution == package) chosen.insert(&e), any = true;
    }
    if (!any && before == chosen.size()) {
      return Error{fmt::format("no rule is applied to package '{}' in this environment", package), {}};
    }
  }
  // Newest first, so that rules stacked on one file come off in reverse order.
  std::vector<const Entry*> ordered;
  for (auto it = manifest.entries.rbegin(); it != manifest.entries.rend(); ++it) {
    if (chosen.count(&*it)) ordered.push_back(&*it);
  }
  return ordered;
}

// The file's hash as it will be when the earlier steps of this revert have run.
struct Simulated {
  Disk& disk;
  const StateDir& state;
  std::map<std::string, std::string> sha;  // path -> sha256, "" when missing

  const std::string& Current(const std::string& path) {
    auto it = sha.find(path);
    if (it != sha.end()) return it->second;
    Result<std::string> bytes = disk.Read(state.FilePath(path));
    return sha[path] = bytes ? Sha256Hex(*bytes) : std::string();
  }
};

// Decides what reverting `entry` means; appends the restores it needs to `restores`.
RevertItem Classify(const Entry& entry, const RevertRequest& request, Simulated& sim,
                    std::vector<JournalFile>& restores) {
  RevertItem item{entry.rule, entry.distribution, RevertVerdict::reverted, "", {}, {}};
  std::vector<JournalFile> mine;
  std::vector<std::string> changed, upgraded;
  for (const FileRecord& f : entry.files) {
    // A path the policy refuses (a symlink on the way, say) is never classified: its bytes could
    // not be read, and "missing" must not pass for "reinstalled" and drop the record.
    if (Result<fs::path> path = CheckStatePath(const_cast<StateDir&>(sim.state), f.path); !path) {
      throw Fatal(fmt::format("{}: {}; nothing was reverted", sim.state.manifest_path().string(), path.error().str()));
    }
    const std::string& now = sim.Current(f.path);
    if (now == f.patched_sha256) {
      mine.push_back({f.path, f.original_sha256, f.patched_sha256, f.backup, f.original_mtime_ns});
    } else if (now == f.original_sha256) {
      continue;
    } else if (request.matches_record && request.matches_record(entry, f, now)) {
      upgraded.push_back(f.path);
    } else {
      changed.push_back(f.path);
      if (request.force) mine.push_back({f.path, f.original_sha256, now, f.backup, f.original_mtime_ns});
    }
  }
  if (!changed.empty() && !request.force) {
    item.verdict = RevertVerdict::refused;
    item.reason = fmt::format(
        "'{}' changed since archpatch patched it; not overwritten (use --force to "
        "restore the original anyway)",
        fmt::join(changed, "', '"));
    return item;
  }
  if (!upgraded.empty()) {
    item.verdict = RevertVerdict::retired;
    item.reason = fmt::format(
        "'{}' now match(es) the installed package's RECORD (upgraded or "
        "reinstalled); the stale entry was dropped, no file was written",
        fmt::join(upgraded, "', '"));
    return item;
  }
  if (mine.empty()) {
    item.verdict = RevertVerdict::retired;
    item.reason = "every file already has its original bytes; the entry was dropped";
    return item;
  }
  for (const JournalFile& f : mine) {
    item.restored.push_back(f.path);
    sim.sha[f.path] = f.original_sha256;
  }
  restores.insert(restores.end(), mine.begin(), mine.end());
  return item;
}

// Everything the restores will read, checked before the first write: a damaged or missing backup,
// or a manifest path the path-safety policy refuses, refuses the whole revert.
void CheckRestores(StateDir& state, const std::vector<JournalFile>& restores) {
  std::vector<std::string> problems;
  for (const JournalFile& f : restores) {
    if (Result<fs::path> path = CheckStatePath(state, f.path); !path) {
      problems.push_back(fmt::format("{}: {}", state.manifest_path().string(), path.error().str()));
    } else if (Result<std::string> backup = state.ReadBackup(f.backup, f.original_sha256); !backup) {
      problems.push_back(fmt::format("{}: {}", f.path, backup.error().message));
    }
  }
  if (problems.empty()) return;
  throw Fatal(
      fmt::format("{}; nothing was reverted. archpatch cannot put back a file whose backup is "
                  "lost: reinstall its package (pip install --force-reinstall --no-deps NAME==VERSION), "
                  "then revert again: an entry whose files match the package's RECORD again is "
                  "dropped without writing",
                  fmt::join(problems, "; ")));
}

}  // namespace

const char* Name(RevertVerdict v) {
  switch (v) {
    case RevertVerdict::reverted: return "reverted";
    case RevertVerdict::retired: return "retired";
    case RevertVerdict::refused: return "refused";
  }
  return "?";
}

Result<RevertOutcome> RevertEntries(StateDir& state, const RevertRequest& request, const TransactionOptions& options) {
  Result<Manifest> manifest = state.LoadManifestForTransaction();
  if (!manifest) throw Fatal(manifest.error().str());  // damaged state: exit 3, as from every command
  Result<std::vector<const Entry*>> selected = Select(*manifest, request);
  if (!selected) return selected.error();

  RevertOutcome outcome;
  Simulated sim{state.disk(), state, {}};
  Journal journal{"revert", NewTransactionId(), UtcNow(), {}, {}};
  for (const Entry* entry : *selected) {
    outcome.items.push_back(Classify(*entry, request, sim, journal.files));
    if (outcome.items.back().verdict != RevertVerdict::refused) journal.rules.push_back(entry->rule);
  }
  if (journal.rules.empty()) return outcome;
  CheckRestores(state, journal.files);

  if (!journal.files.empty()) Must(state.SaveJournal(journal), "writing the journal");
  for (const JournalFile& f : journal.files) {
    fs::path absolute = state.FilePath(f.path);
    std::string original = Must(state.ReadBackup(f.backup, f.original_sha256), "reading a backup");
    Must(state.disk().Replace(absolute, original, {f.original_mtime_ns}), fmt::format("restoring '{}'", f.path));
    std::string written = Must(state.disk().Read(absolute), "reading back");
    if (Sha256Hex(written) != f.original_sha256) {
      throw Fatal(
          fmt::format("'{}' does not have its original SHA-256 '{}' after restoring", f.path, f.original_sha256));
    }
    std::vector<fs::path> removed =
        Must(RemoveCachedBytecode(state.disk(), absolute, options.pycache_prefix), "removing bytecode");
    outcome.pyc_removed.insert(outcome.pyc_removed.end(), removed.begin(), removed.end());
  }
  for (RevertItem& item : outcome.items) {
    if (item.verdict != RevertVerdict::reverted || !options.clear_caches) continue;
    const Entry* entry = manifest->Find(item.rule);
    std::vector<fs::path> changed;
    for (const std::string& p : item.restored) changed.push_back(state.FilePath(p));
    item.caches_cleared = options.clear_caches(*entry, changed);
  }
  std::set<std::string> done(journal.rules.begin(), journal.rules.end());
  std::erase_if(manifest->entries, [&](const Entry& e) { return done.count(e.rule) > 0; });
  Must(state.SaveManifest(*manifest), "writing the manifest");
  if (!journal.files.empty()) Must(state.RemoveJournal(), "removing the journal");
  return outcome;
}

}  // namespace archpatch::store
