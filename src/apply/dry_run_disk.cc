#include "apply/dry_run_disk.h"

#include <algorithm>

#include <fmt/format.h>

namespace archpatch::apply {

Result<std::string> DryRunDisk::Read(const store::fs::path& path) {
  if (auto it = files_.find(path); it != files_.end()) return it->second;
  if (gone_.count(path)) return Error{fmt::format("cannot read '{}': No such file or directory", path.string()), {}};
  return inner_.Read(path);
}

store::FileInfo DryRunDisk::Stat(const store::fs::path& path) {
  if (auto it = files_.find(path); it != files_.end()) {
    store::FileInfo old = gone_.count(path) ? store::FileInfo{} : inner_.Stat(path);
    const bool was_file = old.kind == store::FileKind::file;
    return {store::FileKind::file, was_file ? old.mode : 0644u, old.uid, old.gid, 1, it->second.size(), 0};
  }
  if (dirs_.count(path)) return {store::FileKind::dir, 0755, 0, 0, 1, 0, 0};
  if (gone_.count(path)) return {};
  return inner_.Stat(path);
}

Result<std::vector<std::string>> DryRunDisk::List(const store::fs::path& dir) {
  Result<std::vector<std::string>> listed = inner_.List(dir);
  if (!listed && !dirs_.count(dir)) return listed;
  std::vector<std::string> names = listed ? *listed : std::vector<std::string>{};
  std::erase_if(names, [&](const std::string& n) { return gone_.count(dir / n) && !files_.count(dir / n); });
  for (const auto& [p, bytes] : files_) {
    if (p.parent_path() == dir) names.push_back(p.filename().string());
  }
  for (const store::fs::path& p : dirs_) {
    if (p.parent_path() == dir) names.push_back(p.filename().string());
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

Status DryRunDisk::Replace(const store::fs::path& path, std::string_view bytes, const store::ReplaceOptions&) {
  store::FileInfo dir = Stat(path.parent_path());
  if (dir.kind != store::FileKind::dir) {
    return Error{fmt::format("cannot create '{}': No such file or directory", path.string()), {}};
  }
  files_[path] = std::string(bytes);
  writes_.push_back("replace " + path.string());
  return Ok{};
}

Status DryRunDisk::Remove(const store::fs::path& path) {
  files_.erase(path);
  gone_.insert(path);
  writes_.push_back("remove " + path.string());
  return Ok{};
}

Status DryRunDisk::RemoveDir(const store::fs::path& path) {
  dirs_.erase(path);
  gone_.insert(path);
  writes_.push_back("rmdir " + path.string());
  return Ok{};
}

Status DryRunDisk::MakeDirs(const store::fs::path& path) {
  for (store::fs::path p = path; !p.empty() && p != p.root_path(); p = p.parent_path()) {
    if (Stat(p).kind == store::FileKind::dir) break;
    dirs_.insert(p);
    gone_.erase(p);
  }
  writes_.push_back("mkdir " + path.string());
  return Ok{};
}

}  // namespace archpatch::apply
