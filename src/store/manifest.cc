#include "store/manifest.h"

#include <unistd.h>

#include <chrono>
#include <ctime>

#include <fmt/format.h>

#include "env/safe_path.h"

namespace archpatch::store {

using nlohmann::json;

const Entry* Manifest::Find(const std::string& rule) const {
  for (const Entry& e : entries) {
    if (e.rule == rule) return &e;
  }
  return nullptr;
}

json ToJson(const EditRecord& e) {
  json j = {{"line", e.line}, {"before", e.before}, {"after", e.after}};
  if (e.spanned) {
    j["begin"] = e.begin;
    j["end"] = e.end;
  }
  return j;
}

json ToJson(const FileRecord& f) {
  json edits = json::array();
  for (const EditRecord& e : f.edits) edits.push_back(ToJson(e));
  json j = {{"path", f.path},
            {"original_sha256", f.original_sha256},
            {"patched_sha256", f.patched_sha256},
            {"backup", f.backup},
            {"links", f.links},
            {"edits", edits}};
  if (!f.blast_radius.is_null()) j["blast_radius"] = f.blast_radius;
  if (f.original_mtime_ns) j["original_mtime_ns"] = *f.original_mtime_ns;
  return j;
}

json ToJson(const CacheRecord& c) {
  return {{"name", c.name}, {"root", c.root}, {"files", c.files}, {"bytes", c.bytes}};
}

json ToJson(const Entry& e) {
  json files = json::array();
  for (const FileRecord& f : e.files) files.push_back(ToJson(f));
  json cleared = json::array();
  for (const CacheRecord& c : e.caches_cleared) cleared.push_back(ToJson(c));
  return {{"rule", e.rule},
          {"rule_sha256", e.rule_sha256},
          {"distribution", e.distribution},
          {"version", e.version},
          {"installer", e.installer},
          {"targets", e.targets},
          {"caches", e.caches},
          {"caches_cleared", cleared},
          {"files", files},
          {"transaction", e.transaction},
          {"applied_at", e.applied_at},
          {"archpatch_version", e.archpatch_version}};
}

json ToJson(const Manifest& m) {
  json entries = json::array();
  for (const Entry& e : m.entries) entries.push_back(ToJson(e));
  return {{"format", kManifestFormat}, {"entries", entries}};
}

namespace {

// Reads j[key] as T, or records why not.
template <typename T>
bool Get(const json& j, const char* key, T& out, std::string& why) {
  if (!j.is_object() || !j.contains(key)) {
    why = fmt::format("missing key '{}'", key);
    return false;
  }
  try {
    out = j.at(key).get<T>();
  } catch (const json::exception&) {
    why = fmt::format("key '{}' has the wrong type", key);
    return false;
  }
  return true;
}

bool FileFromJson(const json& j, FileRecord& f, std::string& why) {
  if (!Get(j, "path", f.path, why) || !Get(j, "original_sha256", f.original_sha256, why) ||
      !Get(j, "patched_sha256", f.patched_sha256, why) || !Get(j, "backup", f.backup, why) ||
      !Get(j, "links", f.links, why)) {
    return false;
  }
  json edits;
  if (!Get(j, "edits", edits, why)) return false;
  if (!edits.is_array()) {
    why = "'edits' is not a list";
    return false;
  }
  for (const json& e : edits) {
    EditRecord r;
    if (!Get(e, "line", r.line, why) || !Get(e, "before", r.before, why) || !Get(e, "after", r.after, why)) {
      return false;
    }
    // Spans are optional (older manifests have none) but must be consistent when present.
    if (e.contains("begin") || e.contains("end")) {
      if (!Get(e, "begin", r.begin, why) || !Get(e, "end", r.end, why)) return false;
      if (r.end < r.begin || r.end - r.begin != r.before.size()) {
        why = "an edit's 'begin'/'end' do not span its 'before' text";
        return false;
      }
      r.spanned = true;
    }
    f.edits.push_back(std::move(r));
  }
  if (j.contains("blast_radius")) f.blast_radius = j["blast_radius"];
  if (j.contains("original_mtime_ns")) {
    int64_t mtime = 0;
    if (!Get(j, "original_mtime_ns", mtime, why)) return false;
    f.original_mtime_ns = mtime;
  }
  if (Status safe = CheckStateRecord(f.path, f.original_sha256, f.patched_sha256, f.backup); !safe) {
    why = safe.error().message;
    return false;
  }
  return true;
}

bool EntryFields(const json& j, Entry& e, std::string& why) {
  if (!Get(j, "rule", e.rule, why) || !Get(j, "rule_sha256", e.rule_sha256, why) ||
      !Get(j, "distribution", e.distribution, why) || !Get(j, "version", e.version, why) ||
      !Get(j, "installer", e.installer, why) || !Get(j, "targets", e.targets, why) ||
      !Get(j, "caches", e.caches, why) || !Get(j, "transaction", e.transaction, why) ||
      !Get(j, "applied_at", e.applied_at, why) || !Get(j, "archpatch_version", e.archpatch_version, why)) {
    return false;
  }
  json files, cleared;
  if (!Get(j, "files", files, why) || !Get(j, "caches_cleared", cleared, why)) return false;
  for (const json& f : files) {
    FileRecord r;
    if (!FileFromJson(f, r, why)) return false;
    e.files.push_back(std::move(r));
  }
  for (const json& c : cleared) {
    CacheRecord r;
    if (!Get(c, "name", r.name, why) || !Get(c, "root", r.root, why) || !Get(c, "files", r.files, why) ||
        !Get(c, "bytes", r.bytes, why)) {
      return false;
    }
    e.caches_cleared.push_back(std::move(r));
  }
  return true;
}

}  // namespace

bool IsSha256Hex(const std::string& s) {
  return s.size() == 64 && s.find_first_not_of("0123456789abcdef") == std::string::npos;
}

Status CheckStateRecord(const std::string& path, const std::string& original_sha256, const std::string& patched_sha256,
                        const std::string& backup) {
  if (Status safe = env::CheckRelativePath(path); !safe) {
    return Error{fmt::format("file '{}': {}", path, safe.error().message), {}};
  }
  // An empty patched hash: a forced revert restoring a file that was missing.
  if (!IsSha256Hex(original_sha256) || (!patched_sha256.empty() && !IsSha256Hex(patched_sha256))) {
    return Error{fmt::format("file '{}': a hash is not 64 lower-case hex digits", path), {}};
  }
  if (backup != "backups/" + original_sha256) {
    return Error{fmt::format("file '{}': backup '{}' is not 'backups/<original_sha256>'", path, backup), {}};
  }
  return Ok{};
}

Result<Entry> EntryFromJson(const json& j) {
  Entry e;
  std::string why;
  if (!EntryFields(j, e, why)) return Error{why, {}};
  return e;
}

Result<Manifest> ManifestFromJson(const json& j, const std::string& source) {
  int format = 0;
  std::string why;
  if (!Get(j, "format", format, why)) return Error{fmt::format("{}: {}", source, why), {}};
  if (format != kManifestFormat) {
    return Error{fmt::format("{}: manifest format {} is not supported (this archpatch reads {})", source, format,
                             kManifestFormat),
                 {}};
  }
  json entries;
  if (!Get(j, "entries", entries, why) || !entries.is_array()) {
    return Error{fmt::format("{}: {}", source, why.empty() ? "'entries' is not a list" : why), {}};
  }
  Manifest m;
  for (size_t i = 0; i < entries.size(); ++i) {
    Result<Entry> e = EntryFromJson(entries[i]);
    if (!e) return Error{fmt::format("{}: entry {}: {}", source, i + 1, e.error().message), {}};
    m.entries.push_back(std::move(*e));
  }
  return m;
}

std::string UtcNow() {
  std::time_t now = std::time(nullptr);
  std::tm utc;
  gmtime_r(&now, &utc);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buffer;
}

std::string NewTransactionId() {
  static int counter = 0;
  auto ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  return fmt::format("{:x}-{}-{}", ns, getpid(), ++counter);
}

std::string ArchpatchVersion() {
#ifdef ARCHPATCH_VERSION
  return ARCHPATCH_VERSION;
#else
  return "0.1.0";
#endif
}

}  // namespace archpatch::store
