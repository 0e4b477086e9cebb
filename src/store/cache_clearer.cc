#include "store/cache_clearer.h"

#include <fmt/format.h>

namespace archpatch::store {

CacheClearer MakeCacheClearer(Disk& disk, std::vector<CacheKind> kinds, EnvLookup env,
                              std::vector<std::string>* warnings) {
  return [&disk, kinds = std::move(kinds), env = std::move(env), warnings](
             const Entry& entry, const std::vector<fs::path>& changed) {
    std::vector<CacheRecord> cleared;
    for (const std::string& name : entry.caches) {
      const CacheKind* kind = FindCacheKind(kinds, name);
      if (!kind) {
        warnings->push_back(fmt::format("cache '{}' named by rule '{}' is not declared in caches.yaml; "
                                        "not cleared",
                                        name, entry.rule));
        continue;
      }
      Result<fs::path> root = ResolveCacheRoot(*kind, env);
      if (!root) {
        warnings->push_back(fmt::format("cache '{}' not cleared: {}", name, root.error().str()));
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
