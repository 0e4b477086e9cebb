#include "store/cache_clearer.h"

#include <algorithm>
#include <optional>

#include <fmt/format.h>

namespace archpatch::store {
namespace {

// A cache root must never be the package (or site-packages, or a folder above it): the first
// patched file found under the resolved root, compared on resolved paths.
std::optional<fs::path> PatchedFileInside(const fs::path& root, const std::vector<fs::path>& changed) {
  std::error_code ec;
  const fs::path real_root = fs::weakly_canonical(root, ec);
  if (ec) return std::nullopt;
  for (const fs::path& file : changed) {
    const fs::path real = fs::weakly_canonical(file, ec);
    if (ec) continue;
    auto [r, f] = std::mismatch(real_root.begin(), real_root.end(), real.begin(), real.end());
    if (r == real_root.end() || (r->empty() && std::next(r) == real_root.end())) return file;
  }
  return std::nullopt;
}

}  // namespace

CacheClearer MakeCacheClearer(Disk& disk, std::vector<CacheKind> kinds, EnvLookup env,
                              std::vector<std::string>* warnings) {
  return [&disk, kinds = std::move(kinds), env = std::move(env), warnings](const Entry& entry,
                                                                           const std::vector<fs::path>& changed) {
    std::vector<CacheRecord> cleared;
    for (const std::string& name : entry.caches) {
      const CacheKind* kind = FindCacheKind(kinds, name);
      if (!kind) {
        warnings->push_back(
            fmt::format("cache '{}' named by rule '{}' is not declared in caches.yaml; "
                        "not cleared",
                        name, entry.rule));
        continue;
      }
      Result<fs::path> root = ResolveCacheRoot(*kind, env);
      if (!root) {
        warnings->push_back(fmt::format("cache '{}' not cleared: {}", name, root.error().str()));
        continue;
      }
      if (std::optional<fs::path> inside = PatchedFileInside(*root, changed)) {
        warnings->push_back(fmt::format("cache '{}' not cleared: its root '{}' holds the patched file '{}'", name,
                                        root->string(), inside->string()));
        continue;
      }
      Result<ClearReport> report = ClearCache(disk, *kind, *root, changed);
      if (!report) {
        warnings->push_back(fmt::format("cache '{}' not fully cleared: {}", name, report.error().str()));
        continue;
      }
      cleared.push_back(CacheRecord{name, root->string(), report->files, report->bytes});
    }
    return cleared;
  };
}

}  // namespace archpatch::store
