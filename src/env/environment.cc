#include "env/environment.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <iterator>
#include <system_error>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "env/digest.h"
#include "util/input_file.h"

namespace archpatch::env {
namespace fs = std::filesystem;
namespace {

// METADATA is an email-style header block; the body after the first blank line is ignored.
std::string HeaderValue(std::string_view metadata, std::string_view key) {
  size_t start = 0;
  while (start < metadata.size()) {
    size_t end = metadata.find('\n', start);
    if (end == std::string_view::npos) end = metadata.size();
    std::string_view line = metadata.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) break;
    const size_t colon = line.find(':');
    if (colon != std::string_view::npos && colon == key.size()) {
      bool same = std::equal(key.begin(), key.end(), line.begin(), [](char a, char b) {
        return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
      });
      if (same) {
        std::string_view value = line.substr(colon + 1);
        while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
        while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
        return std::string(value);
      }
    }
    start = end + 1;
  }
  return "";
}

std::string FirstLine(const std::string& text) {
  std::string line = text.substr(0, text.find('\n'));
  while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
  return line;
}

// One *.dist-info folder; an error when METADATA lacks a name or version.
Result<Distribution> ReadDistInfo(const fs::path& root, const fs::path& dist_info) {
  Result<std::string> metadata = ReadInputFile(dist_info / "METADATA", kMaxRecordBytes);
  if (!metadata) return metadata.error();
  Distribution dist;
  dist.root = root;
  dist.dist_info = dist_info;
  dist.name = HeaderValue(*metadata, "Name");
  dist.version = HeaderValue(*metadata, "Version");
  if (dist.name.empty() || dist.version.empty()) {
    return Error{fmt::format("'{}' has no Name or Version", (dist_info / "METADATA").string()), {}};
  }
  dist.normalized_name = NormalizeName(dist.name);
  if (Result<std::string> installer = ReadInputFile(dist_info / "INSTALLER", kMaxRecordBytes)) {
    dist.installer = FirstLine(*installer);
  }
  const fs::path record_path = dist_info / "RECORD";
  std::error_code ec;
  if (fs::exists(record_path, ec)) {
    Result<std::string> record = ReadInputFile(record_path, kMaxRecordBytes);
    if (!record) return record.error();
    Result<std::vector<RecordEntry>> entries = ParseRecord(*record, record_path.string());
    if (!entries) return entries.error();
    dist.record = std::move(*entries);
  } else {
    spdlog::info("'{}' has no RECORD; its files cannot be verified", dist_info.string());
  }
  return dist;
}

// The *.dist-info folders of `dir`, sorted.
Result<std::vector<fs::path>> DistInfosIn(const fs::path& dir) {
  std::error_code ec;
  std::vector<fs::path> dist_infos;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.size() > 10 && name.ends_with(".dist-info") && entry.is_directory()) {
      dist_infos.push_back(entry.path());
    }
  }
  if (ec) return Error{fmt::format("cannot list '{}': {}", dir.string(), ec.message()), {}};
  std::sort(dist_infos.begin(), dist_infos.end());
  return dist_infos;
}

// Each readable *.dist-info of `dir` in folder order, handed over whole; one that cannot be read
// is skipped with a warning.
Status ForEachDistribution(const fs::path& dir, const std::function<void(Distribution&&)>& take) {
  Result<std::vector<fs::path>> dist_infos = DistInfosIn(dir);
  if (!dist_infos) return dist_infos.error();
  for (const fs::path& dist_info : *dist_infos) {
    Result<Distribution> dist = ReadDistInfo(dir, dist_info);
    if (!dist) {
      spdlog::warn("skipping {}", dist.error().str());
      continue;
    }
    take(std::move(*dist));
  }
  return Ok{};
}

Status AddDistributions(const fs::path& dir, std::vector<Distribution>& out) {
  return ForEachDistribution(dir, [&out](Distribution&& dist) { out.push_back(std::move(dist)); });
}

// Distributions in the order RecordMismatches and Environment::Find see them: by normalized name,
// then by folder.
void SortDistributions(std::vector<Distribution>& distributions) {
  std::stable_sort(distributions.begin(), distributions.end(),
                   [](const Distribution& a, const Distribution& b) { return a.normalized_name < b.normalized_name; });
}

}  // namespace

std::string NormalizeName(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (c == '-' || c == '_' || c == '.') {
      if (out.empty() || out.back() != '-') out += '-';
    } else {
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  return out;
}

const RecordEntry* Distribution::FindRecord(std::string_view relative_path) const {
  for (const RecordEntry& entry : record) {
    if (entry.path == relative_path) return &entry;
  }
  return nullptr;
}

const Distribution* Environment::Find(std::string_view name) const {
  const std::string wanted = NormalizeName(name);
  for (const Distribution& dist : distributions) {
    if (dist.normalized_name == wanted) return &dist;
  }
  return nullptr;
}

Result<Environment> LoadSitePackages(const fs::path& dir, bool plain_root, bool read_distributions) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    return Error{fmt::format("'{}' is not a folder", dir.string()), {}};
  }
  Environment env;
  env.site_packages = fs::canonical(dir, ec);
  if (ec) return Error{fmt::format("cannot resolve '{}': {}", dir.string(), ec.message()), {}};
  env.search_paths = {env.site_packages};
  env.plain_root = plain_root;
  if (!read_distributions) {
    // Listed now all the same: a folder that cannot be listed is a usage error before any work.
    if (Result<std::vector<fs::path>> listed = DistInfosIn(env.site_packages); !listed) return listed.error();
    return env;
  }
  if (Status added = AddDistributions(env.site_packages, env.distributions); !added) return added.error();
  SortDistributions(env.distributions);
  return env;
}

Result<Environment> Discover(const EnvOptions& options) {
  const int given = !options.python.empty() + !options.site_packages.empty() + !options.root.empty();
  if (given > 1) return Error{"give only one of --python, --site-packages and --root", {}};
  if (!options.site_packages.empty()) return LoadSitePackages(options.site_packages, false, options.read_distributions);
  if (!options.root.empty()) return LoadSitePackages(options.root, /*plain_root=*/true, options.read_distributions);
  const std::string python = options.python.empty() ? "python3" : options.python;
  Result<std::vector<fs::path>> dirs = AskPythonForSitePackages(python);
  if (!dirs) {
    if (options.python.empty()) {
      return Error{fmt::format("{} (use --python, --site-packages or --root)", dirs.error().message), {}};
    }
    return dirs.error();
  }
  Result<Environment> env = LoadSitePackages(dirs->front(), false, options.read_distributions);
  if (!env) return env.error();
  env->python = python;
  for (size_t i = 1; i < dirs->size(); ++i) {
    std::error_code ec;
    if (!fs::is_directory((*dirs)[i], ec)) continue;
    env->search_paths.push_back(fs::canonical((*dirs)[i], ec));
    if (!options.read_distributions) continue;
    if (Status added = AddDistributions(env->search_paths.back(), env->distributions); !added) {
      return added.error();
    }
  }
  SortDistributions(env->distributions);
  return env;
}

std::string_view FileStateName(FileState s) {
  switch (s) {
    case FileState::kOk: return "ok";
    case FileState::kModified: return "modified";
    case FileState::kMissing: return "missing";
    case FileState::kUnchecked: return "unchecked";
  }
  return "unchecked";
}

namespace {

class RealInstalledFiles : public InstalledFiles {
 public:
  bool Exists(const fs::path& path) override {
    std::error_code ec;
    return fs::exists(fs::symlink_status(path, ec));
  }
  Result<std::string> RecordHash(const fs::path& path) override { return Sha256UrlsafeB64OfFile(path); }
};

}  // namespace

InstalledFiles& RealFiles() {
  static RealInstalledFiles files;
  return files;
}

FileCheck VerifyFile(const Distribution& dist, const RecordEntry& entry, InstalledFiles& files) {
  FileCheck check{entry.path, FileState::kOk, entry.hash, ""};
  const fs::path path = (dist.root / entry.path).lexically_normal();
  if (!files.Exists(path)) {
    check.state = FileState::kMissing;
    return check;
  }
  if (entry.hash_algorithm != "sha256") {  // RECORD's own row and .pyc files carry no hash
    check.state = FileState::kUnchecked;
    return check;
  }
  Result<std::string> hash = files.RecordHash(path);
  if (!hash) {
    check.state = FileState::kMissing;
    return check;
  }
  check.actual_hash = *hash;
  if (check.actual_hash != entry.hash) check.state = FileState::kModified;
  return check;
}

std::vector<FileCheck> ModifiedFiles(const Distribution& dist, InstalledFiles& files) {
  return ModifiedFiles(dist, [](std::string_view) { return true; }, files);
}

std::vector<FileCheck> ModifiedFiles(const Distribution& dist, const std::function<bool(std::string_view)>& wanted,
                                     InstalledFiles& files) {
  std::vector<FileCheck> changed;
  for (const RecordEntry& entry : dist.record) {
    if (!wanted(entry.path)) continue;
    FileCheck check = VerifyFile(dist, entry, files);
    if (check.state == FileState::kModified || check.state == FileState::kMissing) {
      changed.push_back(std::move(check));
    }
  }
  std::sort(changed.begin(), changed.end(), [](const FileCheck& a, const FileCheck& b) { return a.path < b.path; });
  return changed;
}

std::vector<RecordMismatch> RecordMismatches(const Environment& env,
                                             const std::function<bool(std::string_view)>& wanted) {
  std::vector<RecordMismatch> out;
  for (const Distribution& dist : env.distributions) {
    for (const FileCheck& check : ModifiedFiles(dist, wanted)) {
      out.push_back({dist.normalized_name, env.site_packages / check.path, std::string(FileStateName(check.state))});
    }
  }
  return out;
}

Result<std::vector<RecordMismatch>> CheckRecords(const Environment& env,
                                                 const std::function<bool(std::string_view)>& wanted) {
  struct Checked {
    std::string normalized_name;
    std::vector<RecordMismatch> rows;
  };
  std::vector<Checked> checked;
  for (const fs::path& dir : env.search_paths) {
    Status read = ForEachDistribution(dir, [&](Distribution&& dist) {
      Environment one;  // this distribution alone, dropped once checked
      one.site_packages = env.site_packages;
      one.distributions.push_back(std::move(dist));
      checked.push_back({one.distributions.front().normalized_name, RecordMismatches(one, wanted)});
    });
    if (!read) return read.error();
  }
  // In the order of Discover's distributions (SortDistributions).
  std::stable_sort(checked.begin(), checked.end(),
                   [](const Checked& a, const Checked& b) { return a.normalized_name < b.normalized_name; });
  std::vector<RecordMismatch> out;
  for (Checked& c : checked) std::move(c.rows.begin(), c.rows.end(), std::back_inserter(out));
  return out;
}

}  // namespace archpatch::env
