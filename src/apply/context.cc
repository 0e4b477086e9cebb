#include "apply/context.h"

#include <cstdlib>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include "env/digest.h"
#include "rules/loader.h"
#include "store/cache_clearer.h"

namespace archpatch::apply {

std::vector<store::CacheKind> LoadCacheKindsOrWarn() {
  std::vector<std::string> searched;
  for (const std::filesystem::path& dir : rules::RuleDirectories()) {
    std::filesystem::path file = dir / "caches.yaml";
    std::error_code ec;
    searched.push_back(dir.string());
    if (!std::filesystem::is_regular_file(file, ec)) continue;
    Result<std::vector<store::CacheKind>> kinds = store::LoadCacheKinds(file);
    if (!kinds) throw UsageError(kinds.error().str());
    return std::move(*kinds);
  }
  spdlog::warn("no caches.yaml in the rule directories ({}): JIT caches that rules name are not cleared",
               fmt::join(searched, ", "));
  return {};
}

std::optional<std::filesystem::path> PycachePrefix() {
  const char* prefix = std::getenv("PYTHONPYCACHEPREFIX");
  if (!prefix || !*prefix) return std::nullopt;
  return std::filesystem::absolute(prefix);
}

StoreOptions StoreOptionsFromProcess(bool clear_caches) {
  StoreOptions o;
  o.clear_caches = clear_caches;
  o.pycache_prefix = PycachePrefix();
  if (clear_caches) o.cache_kinds = LoadCacheKindsOrWarn();
  return o;
}

store::TransactionOptions MakeTransactionOptions(store::Disk& disk, const StoreOptions& options,
                                                 std::vector<std::string>* notes) {
  store::TransactionOptions t{options.pycache_prefix, {}};
  if (options.clear_caches)
    t.clear_caches = store::MakeCacheClearer(disk, options.cache_kinds, store::ProcessEnv(), notes);
  return t;
}

bool MatchesInstalledRecord(store::Disk& disk, const env::Environment& env, const store::Entry& entry,
                            const store::FileRecord& file) {
  const env::Distribution* dist = env.Find(entry.distribution);
  if (!dist) return false;
  const env::RecordEntry* row = dist->FindRecord(file.path);
  Result<std::string> bytes = disk.Read(env.site_packages / file.path);
  if (!row) return !bytes;  // the new version no longer ships the file
  if (!bytes || row->hash_algorithm != "sha256") return false;
  return env::Sha256UrlsafeB64(*bytes) == row->hash;
}

std::string HumanBytes(uint64_t bytes) {
  if (bytes < 1024) return fmt::format("{} B", bytes);
  if (bytes < 1024 * 1024) return fmt::format("{:.1f} KiB", bytes / 1024.0);
  if (bytes < 1024ull * 1024 * 1024) return fmt::format("{:.1f} MiB", bytes / (1024.0 * 1024));
  return fmt::format("{:.1f} GiB", bytes / (1024.0 * 1024 * 1024));
}

}  // namespace archpatch::apply
