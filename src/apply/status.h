// Status: what is applied in an environment, whether each file is still as archpatch left it,
// and whether a transaction was left half done. Reads only, under the shared lock; never rolls
// anything back.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "apply/drift.h"
#include "apply/lock.h"
#include "store/disk.h"
#include "store/manifest.h"
#include "store/state_dir.h"

namespace archpatch::apply {

struct FileStatus {
  std::string path;
  FileState state = FileState::missing;
  std::string original_sha256, patched_sha256;
};

struct EntryStatus {
  store::Entry entry;
  bool as_left = true;
  std::vector<FileStatus> files;
};

struct HalfDone {
  store::Journal journal;
  bool committed = false;  // the manifest records it: only the journal was left behind
  std::vector<FileStatus> files;
  // Why a rollback could not be done whole (a damaged or missing backup, ...): empty when the
  // next apply or revert rolls it back (store::RecoveryProblems).
  std::vector<std::string> problems;
};

struct StatusReport {
  std::filesystem::path site_packages;
  std::optional<HalfDone> half_done;
  std::vector<EntryStatus> entries;
  bool drift() const;  // a half-done transaction, or a file not as archpatch left it
};

StatusReport ReadStatus(store::Disk& disk, Locker& locker, const std::filesystem::path& site_packages);

}  // namespace archpatch::apply
