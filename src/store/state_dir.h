// StateDir: <site-packages>/.archpatch/, where the store keeps what it needs to undo its work:
//   manifest.json      what is applied (store/manifest.h)
//   journal.json       present only while a transaction runs, or after one was cut short
//   backups/<sha256>   each original file, named by its hash
//   lock               flock(2) target that serialises archpatch runs (store/lock.h)
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "env/safe_path.h"
#include "store/disk.h"
#include "store/manifest.h"

namespace archpatch::store {

using env::kStateDirName;  // the one name, owned by the path-safety policy

// One file a transaction is changing: enough to put it back without the manifest.
struct JournalFile {
  std::string path;
  std::string original_sha256;
  std::string patched_sha256;
  std::string backup;
  std::optional<int64_t> original_mtime_ns;  // given back with the original bytes
};

// Written (after the backups) before the first file is touched, removed once the manifest
// records the outcome. Its presence means a transaction may be half done.
struct Journal {
  std::string operation;  // "apply" or "revert"
  std::string transaction;
  std::string started_at;
  std::vector<std::string> rules;
  std::vector<JournalFile> files;
};

nlohmann::json ToJson(const Journal& j);
Result<Journal> JournalFromJson(const nlohmann::json& j, const std::string& source);

class StateDir {
 public:
  StateDir(Disk& disk, fs::path site_packages);

  Disk& disk() { return disk_; }
  const fs::path& site() const { return site_; }
  fs::path dir() const { return site_ / kStateDirName; }
  fs::path manifest_path() const { return dir() / "manifest.json"; }
  fs::path journal_path() const { return dir() / "journal.json"; }
  // The absolute path of a file named relative to site-packages.
  fs::path FilePath(const std::string& relative) const { return site_ / relative; }

  bool Exists() { return disk_.Stat(dir()).kind == FileKind::dir; }
  Status Create();

  // An empty manifest when none was written yet.
  Result<Manifest> LoadManifest();
  Status SaveManifest(const Manifest& m);

  Result<std::optional<Journal>> LoadJournal();
  // The manifest, for a new apply or revert: refused while a journal says an earlier
  // transaction was left half done (Recover must roll it back first).
  Result<Manifest> LoadManifestForTransaction();
  Status SaveJournal(const Journal& j);
  Status RemoveJournal();

  // Stores the original bytes under backups/<sha256> (once: backups are content-addressed) and
  // returns the reference to record, "backups/<sha256>".
  Result<std::string> SaveBackup(std::string_view bytes);
  // The backed-up bytes, checked against the hash they must have.
  Result<std::string> ReadBackup(const std::string& reference, const std::string& sha256);

 private:
  Result<nlohmann::json> ReadJson(const fs::path& path);
  Disk& disk_;
  fs::path site_;
};

}  // namespace archpatch::store
