// The manifest: what archpatch changed in one environment, kept beside it in
// <site-packages>/.archpatch/manifest.json so that every shell, user and container build that
// sees the environment sees it too. docs/manifest.md describes the format.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "util/result.h"

namespace archpatch::store {

constexpr int kManifestFormat = 1;

// One changed place, as a reviewer reads it.
struct EditRecord {
  int line = 0;  // 1-based, in the original file
  std::string before;
  std::string after;
  // The bytes [begin, end) of the original the edit replaced. A manifest written before
  // archpatch recorded spans has none (`spanned` false): readers locate `before` from `line`.
  bool spanned = false;
  size_t begin = 0;
  size_t end = 0;
};

struct FileRecord {
  std::string path;  // relative to site-packages, '/'-separated, as RECORD writes it
  std::string original_sha256;
  std::string patched_sha256;
  std::string backup;  // relative to .archpatch/: "backups/<original_sha256>"
  uint64_t links = 1;  // st_nlink before apply; > 1 means a hard link was broken
  std::vector<EditRecord> edits;
  nlohmann::json blast_radius;  // copied from the plan when it carries one; null otherwise
  // The original's modification time (ns since the epoch), which revert gives back; absent in
  // manifests written before it was recorded, and for a file a second rule of one apply edits.
  std::optional<int64_t> original_mtime_ns;
};

struct CacheRecord {
  std::string name;  // cache kind from rules/caches.yaml
  std::string root;
  uint64_t files = 0;
  uint64_t bytes = 0;
};

// One applied rule.
struct Entry {
  std::string rule;
  std::string rule_sha256;
  std::string distribution;
  std::string version;
  std::string installer;  // the distribution's INSTALLER file ("pip", "uv", ...), "" if none
  std::vector<std::string> targets;
  std::vector<std::string> caches;  // the cache kinds the rule names
  std::vector<CacheRecord> caches_cleared;
  std::vector<FileRecord> files;
  std::string transaction;  // the id of the apply that recorded it
  std::string applied_at;   // UTC, ISO 8601
  std::string archpatch_version;
};

struct Manifest {
  std::vector<Entry> entries;  // in the order they were applied

  const Entry* Find(const std::string& rule) const;
};

nlohmann::json ToJson(const EditRecord& e);
nlohmann::json ToJson(const FileRecord& f);
nlohmann::json ToJson(const CacheRecord& c);
nlohmann::json ToJson(const Entry& e);
nlohmann::json ToJson(const Manifest& m);

// What every file named by the state (a manifest record, a journal entry) must satisfy before
// anything is read or written for it: the path passes env::CheckRelativePath (the one
// path-safety policy: relative, no '..', not into .archpatch), both hashes are 64 lower-case hex
// digits, and the backup is "backups/<original_sha256>" (backups are content-addressed, so a
// record cannot point at any other file).
Status CheckStateRecord(const std::string& path, const std::string& original_sha256, const std::string& patched_sha256,
                        const std::string& backup);
bool IsSha256Hex(const std::string& s);

// Strict: a missing key, a wrong type or a record failing CheckStateRecord is an error naming
// `source` and the entry.
Result<Manifest> ManifestFromJson(const nlohmann::json& j, const std::string& source);
Result<Entry> EntryFromJson(const nlohmann::json& j);

// "2026-11-29T15:40:02Z".
std::string UtcNow();
// A fresh transaction id: UTC time, pid and a counter.
std::string NewTransactionId();
std::string ArchpatchVersion();

}  // namespace archpatch::store
