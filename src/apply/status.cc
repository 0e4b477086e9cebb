#include "apply/status.h"

#include <fmt/format.h>

#include "store/transaction.h"

namespace archpatch::apply {

bool StatusReport::drift() const {
  if (half_done) return true;
  for (const EntryStatus& e : entries) {
    if (!e.as_left) return true;
  }
  return false;
}

StatusReport ReadStatus(store::Disk& disk, Locker& locker, const std::filesystem::path& site_packages) {
  Result<std::unique_ptr<HeldLock>> lock = locker.Lock(site_packages, LockMode::shared);
  if (!lock) throw Fatal(lock.error().str());
  store::StateDir state(disk, site_packages);
  Result<store::Manifest> manifest = state.LoadManifest();
  if (!manifest) throw Fatal(manifest.error().str());
  Result<std::optional<store::Journal>> journal = state.LoadJournal();
  if (!journal) throw Fatal(fmt::format("{}. Way out: {}", journal.error().str(), store::kRecoveryWayOut));

  StatusReport report;
  report.site_packages = site_packages;
  if (journal->has_value()) {
    HalfDone h{**journal, false, {}, {}};
    for (const store::Entry& e : manifest->entries) h.committed |= e.transaction == h.journal.transaction;
    if (!h.committed) h.problems = store::RecoveryProblems(state, h.journal);
    for (const store::JournalFile& f : h.journal.files) {
      h.files.push_back(
          {f.path, StateOf(state, f.path, f.original_sha256, f.patched_sha256), f.original_sha256, f.patched_sha256});
    }
    report.half_done = std::move(h);
  }
  for (const store::Entry& e : manifest->entries) {
    EntryStatus s{e, true, {}};
    for (const store::FileRecord& f : e.files) {
      const FileState now = StateOf(state, *manifest, e, f);
      s.as_left &= now == FileState::patched;
      s.files.push_back({f.path, now, f.original_sha256, f.patched_sha256});
    }
    report.entries.push_back(std::move(s));
  }
  return report;
}

}  // namespace archpatch::apply
