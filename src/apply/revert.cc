#include "apply/revert.h"

#include <algorithm>

#include <fmt/format.h>

#include "env/digest.h"
#include "store/state_dir.h"

namespace archpatch::apply {
namespace {

// After a restore, the file should again be what RECORD says, unless it already differed before.
std::vector<std::string> RecordNotes(store::Disk& disk, const env::Environment& env, const store::RevertOutcome& out) {
  std::vector<std::string> notes;
  for (const store::RevertItem& item : out.items) {
    const env::Distribution* dist = env.Find(item.distribution);
    if (!dist) continue;
    for (const std::string& path : item.restored) {
      const env::RecordEntry* row = dist->FindRecord(path);
      Result<std::string> bytes = disk.Read(env.site_packages / path);
      if (row && bytes && row->hash_algorithm == "sha256" && env::Sha256UrlsafeB64(*bytes) != row->hash) {
        notes.push_back(
            fmt::format("'{}' has its original bytes again, which already differed from RECORD "
                        "before archpatch patched it",
                        path));
      }
    }
  }
  return notes;
}

std::string Message(const store::RevertItem& item) {
  switch (item.verdict) {
    case store::RevertVerdict::reverted: {
      std::string caches;
      for (const store::CacheRecord& c : item.caches_cleared) {
        caches += fmt::format("; cleared cache '{}' ({} file(s), {})", c.name, c.files, HumanBytes(c.bytes));
      }
      return fmt::format("reverted rule '{}': {} file(s) restored{}", item.rule, item.restored.size(), caches);
    }
    case store::RevertVerdict::retired: return fmt::format("retired rule '{}': {}", item.rule, item.reason);
    case store::RevertVerdict::refused: return fmt::format("refused to revert rule '{}': {}", item.rule, item.reason);
  }
  return "";
}

}  // namespace

bool RevertReport::changed() const {
  return std::any_of(items.begin(), items.end(),
                     [](const store::RevertItem& i) { return i.verdict != store::RevertVerdict::refused; });
}

bool RevertReport::refused() const {
  return std::any_of(items.begin(), items.end(),
                     [](const store::RevertItem& i) { return i.verdict == store::RevertVerdict::refused; });
}

RevertReport Revert(store::Disk& disk, Locker& locker, const env::Environment& env, store::RevertRequest request,
                    const StoreOptions& options) {
  if (!request.matches_record) {
    request.matches_record = [&](const store::Entry& e, const store::FileRecord& f, const std::string&) {
      return MatchesInstalledRecord(disk, env, e, f);
    };
  }
  store::StateDir state(disk, env.site_packages);
  // Nothing applied here: no lock to take (and nothing created), only errors for the names.
  std::unique_ptr<HeldLock> held;
  if (state.Exists()) {
    Result<std::unique_ptr<HeldLock>> lock = locker.Lock(env.site_packages, LockMode::exclusive);
    if (!lock) throw Fatal(lock.error().str());
    held = std::move(*lock);
  }
  RevertReport report;
  std::vector<std::string> cache_notes;
  store::TransactionOptions transaction = MakeTransactionOptions(disk, options, &cache_notes);
  transaction.force_recovery = request.force;  // the way out of a rollback that cannot be done whole
  Result<store::RecoveryOutcome> recovered = store::Recover(state, transaction);
  if (!recovered) throw Fatal(fmt::format("cannot roll back the half-done transaction: {}", recovered.error().str()));
  report.recovered = std::move(*recovered);
  Result<store::RevertOutcome> out = store::RevertEntries(state, request, transaction);
  if (!out) throw UsageError(out.error().str());
  report.items = out->items;
  for (const store::RevertItem& item : report.items) report.messages.push_back(Message(item));
  report.notes = std::move(cache_notes);
  std::vector<std::string> record_notes = RecordNotes(disk, env, *out);
  report.notes.insert(report.notes.end(), record_notes.begin(), record_notes.end());
  return report;
}

}  // namespace archpatch::apply
