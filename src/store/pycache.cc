#include "store/pycache.h"

#include <algorithm>

namespace archpatch::store {
namespace {

// "<stem>.<tag>.pyc" or "<stem>.<tag>.opt-<N>.pyc", tag without dots ("cpython-311").
bool IsPycOf(std::string_view name, std::string_view stem) {
  if (!name.starts_with(stem) || name.size() <= stem.size() || name[stem.size()] != '.') return false;
  if (!name.ends_with(".pyc")) return false;
  std::string_view middle = name.substr(stem.size() + 1, name.size() - stem.size() - 1 - 4);
  size_t dot = middle.find('.');
  if (dot == std::string_view::npos) return !middle.empty();
  std::string_view opt = middle.substr(dot + 1);
  return dot > 0 && opt.starts_with("opt-") && opt.size() > 4 && opt.find('.') == std::string_view::npos;
}

void CollectFrom(Disk& disk, const fs::path& dir, std::string_view stem, std::vector<fs::path>& out) {
  if (disk.Stat(dir).kind != FileKind::dir) return;
  Result<std::vector<std::string>> names = disk.List(dir);
  if (!names) return;
  for (const std::string& name : *names) {
    fs::path path = dir / name;
    if (IsPycOf(name, stem) && disk.Stat(path).kind == FileKind::file) out.push_back(path);
  }
}

}  // namespace

std::vector<fs::path> CachedBytecodeFor(Disk& disk, const fs::path& source,
                                        const std::optional<fs::path>& pycache_prefix) {
  std::vector<fs::path> found;
  if (source.extension() != ".py") return found;
  std::string stem = source.stem().string();
  CollectFrom(disk, source.parent_path() / "__pycache__", stem, found);
  if (pycache_prefix && !pycache_prefix->empty()) {
    // CPython mirrors the source's absolute directory under the prefix, without __pycache__.
    std::vector<fs::path> dirs = {source.parent_path()};
    std::error_code ec;
    fs::path canonical = fs::weakly_canonical(source.parent_path(), ec);
    if (!ec && canonical != dirs[0]) dirs.push_back(canonical);
    for (const fs::path& dir : dirs) {
      CollectFrom(disk, *pycache_prefix / dir.relative_path(), stem, found);
    }
  }
  std::sort(found.begin(), found.end());
  found.erase(std::unique(found.begin(), found.end()), found.end());
  return found;
}

Result<std::vector<fs::path>> RemoveCachedBytecode(Disk& disk, const fs::path& source,
                                                   const std::optional<fs::path>& pycache_prefix) {
  std::vector<fs::path> stale = CachedBytecodeFor(disk, source, pycache_prefix);
  for (const fs::path& pyc : stale) {
    Status removed = disk.Remove(pyc);
    if (!removed) return removed.error();
  }
  return stale;
}

}  // namespace archpatch::store
