#include "store/state_dir.h"

#include <fmt/format.h>

#include "env/digest.h"
#include "util/input_file.h"

namespace archpatch::store {

using env::Sha256Hex;

using nlohmann::json;

json ToJson(const Journal& j) {
  json files = json::array();
  for (const JournalFile& f : j.files) {
    files.push_back({{"path", f.path},
                     {"original_sha256", f.original_sha256},
                     {"patched_sha256", f.patched_sha256},
                     {"backup", f.backup}});
    if (f.original_mtime_ns) files.back()["original_mtime_ns"] = *f.original_mtime_ns;
  }
  return {{"format", kManifestFormat},  {"operation", j.operation}, {"transaction", j.transaction},
          {"started_at", j.started_at}, {"rules", j.rules},         {"files", files}};
}

Result<Journal> JournalFromJson(const json& j, const std::string& source) {
  try {
    Journal journal;
    journal.operation = j.at("operation").get<std::string>();
    journal.transaction = j.at("transaction").get<std::string>();
    journal.started_at = j.at("started_at").get<std::string>();
    journal.rules = j.at("rules").get<std::vector<std::string>>();
    for (const json& f : j.at("files")) {
      JournalFile file{f.at("path").get<std::string>(), f.at("original_sha256").get<std::string>(),
                       f.at("patched_sha256").get<std::string>(), f.at("backup").get<std::string>(), std::nullopt};
      if (f.contains("original_mtime_ns")) file.original_mtime_ns = f.at("original_mtime_ns").get<int64_t>();
      if (Status safe = CheckStateRecord(file.path, file.original_sha256, file.patched_sha256, file.backup); !safe) {
        return Error{fmt::format("{}: {}", source, safe.error().message), {}};
      }
      journal.files.push_back(std::move(file));
    }
    if (journal.operation != "apply" && journal.operation != "revert") {
      return Error{fmt::format("{}: unknown operation '{}'", source, journal.operation), {}};
    }
    return journal;
  } catch (const json::exception& e) {
    return Error{fmt::format("{}: not a valid journal: {}", source, e.what()), {}};
  }
}

StateDir::StateDir(Disk& disk, fs::path site_packages) : disk_(disk), site_(std::move(site_packages)) {
  disk_.ConfineBelow(site_);
}

Status StateDir::Create() {
  if (Exists() && disk_.Stat(dir() / "backups").kind == FileKind::dir) return Ok{};
  return disk_.MakeDirs(dir() / "backups");
}

Result<json> StateDir::ReadJson(const fs::path& path) {
  // State is input too (docs/manifest.md, threat model): refuse what no archpatch wrote.
  const FileInfo info = disk_.Stat(path);
  if (info.exists() && info.kind != FileKind::file)
    return Error{fmt::format("{}: not a regular file", path.string()), {}};
  if (info.size > kMaxStateBytes)
    return Error{fmt::format("{}: larger than {} bytes", path.string(), kMaxStateBytes), {}};
  Result<std::string> bytes = disk_.Read(path);
  if (!bytes) return bytes.error();
  json j = json::parse(*bytes, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Error{fmt::format("'{}' is not valid JSON", path.string()), {}};
  return j;
}

Result<Manifest> StateDir::LoadManifest() {
  if (!disk_.Stat(manifest_path()).exists()) return Manifest{};
  Result<json> j = ReadJson(manifest_path());
  if (!j) return j.error();
  return ManifestFromJson(*j, manifest_path().string());
}

Status StateDir::SaveManifest(const Manifest& m) { return disk_.Replace(manifest_path(), ToJson(m).dump(2) + "\n"); }

Result<std::optional<Journal>> StateDir::LoadJournal() {
  if (!disk_.Stat(journal_path()).exists()) return std::optional<Journal>{};
  Result<json> j = ReadJson(journal_path());
  if (!j) return j.error();
  Result<Journal> journal = JournalFromJson(*j, journal_path().string());
  if (!journal) return journal.error();
  return std::optional<Journal>(std::move(*journal));
}

Result<Manifest> StateDir::LoadManifestForTransaction() {
  Result<Manifest> manifest = LoadManifest();
  if (!manifest) return manifest.error();
  Result<std::optional<Journal>> pending = LoadJournal();
  if (!pending) return pending.error();
  if (pending->has_value()) return Error{"a half-done transaction must be rolled back first", {}};
  return manifest;
}

Status StateDir::SaveJournal(const Journal& j) { return disk_.Replace(journal_path(), ToJson(j).dump(2) + "\n"); }

Status StateDir::RemoveJournal() { return disk_.Remove(journal_path()); }

Result<std::string> StateDir::SaveBackup(std::string_view bytes) {
  std::string sha = Sha256Hex(bytes);
  std::string reference = "backups/" + sha;
  fs::path path = dir() / reference;
  if (disk_.Stat(path).exists()) {
    Result<std::string> existing = disk_.Read(path);
    if (existing && Sha256Hex(*existing) == sha) return reference;
  }
  Status written = disk_.Replace(path, bytes);
  if (!written) return written.error();
  return reference;
}

Result<std::string> StateDir::ReadBackup(const std::string& reference, const std::string& sha256) {
  Result<std::string> bytes = disk_.Read(dir() / reference);
  if (!bytes) return Error{fmt::format("backup '{}' is missing: {}", reference, bytes.error().message), {}};
  if (Sha256Hex(*bytes) != sha256) {
    return Error{fmt::format("backup '{}' is damaged: its SHA-256 is not '{}'", reference, sha256), {}};
  }
  return bytes;
}

}  // namespace archpatch::store
