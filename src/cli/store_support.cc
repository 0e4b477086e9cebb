#include "cli/store_support.h"

#include <cstdlib>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "env/digest.h"
#include "rules/loader.h"

namespace archpatch::cli {

void AddEnvOptions(po::options_description& desc) {
  desc.add_options()("python", po::value<std::string>(), "the environment of this interpreter (default: python3)")(
      "site-packages", po::value<std::string>(), "a site-packages folder")(
      "root", po::value<std::string>(), "a plain tree (distributions optional)");
}

env::Environment DiscoverEnvironment(const po::variables_map& vars) {
  RefuseTogether(vars, "python", "site-packages");
  RefuseTogether(vars, "python", "root");
  RefuseTogether(vars, "site-packages", "root");
  env::EnvOptions options;
  if (vars.count("python")) options.python = vars["python"].as<std::string>();
  if (vars.count("site-packages")) options.site_packages = vars["site-packages"].as<std::string>();
  if (vars.count("root")) options.root = vars["root"].as<std::string>();
  Result<env::Environment> env = env::Discover(options);
  if (!env) throw UsageError(env.error().str());
  return std::move(*env);
}

std::vector<store::CacheKind> LoadCacheKindsOrWarn() {
  for (const std::filesystem::path& dir : rules::RuleDirectories()) {
    std::filesystem::path file = dir / "caches.yaml";
    std::error_code ec;
    if (!std::filesystem::is_regular_file(file, ec)) continue;
    Result<std::vector<store::CacheKind>> kinds = store::LoadCacheKinds(file);
    if (!kinds) throw UsageError(kinds.error().str());
    return std::move(*kinds);
  }
  return {};
}

std::optional<std::filesystem::path> PycachePrefix() {
  const char* prefix = std::getenv("PYTHONPYCACHEPREFIX");
  if (!prefix || !*prefix) return std::nullopt;
  return std::filesystem::absolute(prefix);
}

store::RecoveryOutcome RecoverOrThrow(store::StateDir& state, const store::TransactionOptions& options) {
  Result<store::RecoveryOutcome> r = store::Recover(state, options);
  if (!r) throw Fatal(fmt::format("cannot roll back the half-done transaction: {}", r.error().str()));
  if (r->found && r->operation.empty()) {
    fmt::print(stderr, "archpatch: warning: set aside a damaged journal as .archpatch/journal.json.damaged ({}); "
               "the files it named may be half patched: 'archpatch verify' lists files that differ from RECORD\n",
               r->set_aside);
  } else if (r->found) {
    fmt::print(stderr, "archpatch: note: completed the {} of {} that an earlier run left half done "
               "(transaction {}, started {}): {}\n",
               r->operation, fmt::join(r->rules, ", "), r->transaction, r->started_at,
               r->committed ? "it had committed; only its journal was left"
                            : fmt::format("{} file(s) put back", r->restored.size()));
    for (const std::string& problem : r->skipped) {
      fmt::print(stderr, "archpatch: warning: {}; not put back (journal set aside as .archpatch/journal.json.damaged)\n",
                 problem);
    }
    for (const std::string& path : r->left) {
      fmt::print(stderr, "archpatch: warning: {}: changed by someone else meanwhile; left as it is\n", path);
    }
  }
  return std::move(*r);
}

nlohmann::json ToJson(const store::RecoveryOutcome& r) {
  if (!r.found) return nullptr;
  return {{"operation", r.operation}, {"transaction", r.transaction}, {"started_at", r.started_at},
          {"rules", r.rules},         {"committed", r.committed},     {"restored", r.restored},
          {"left", r.left},           {"skipped", r.skipped},         {"set_aside", r.set_aside}};
}

std::string HumanBytes(uint64_t bytes) {
  if (bytes < 1024) return fmt::format("{} B", bytes);
  if (bytes < 1024 * 1024) return fmt::format("{:.1f} KiB", bytes / 1024.0);
  if (bytes < 1024ull * 1024 * 1024) return fmt::format("{:.1f} MiB", bytes / (1024.0 * 1024));
  return fmt::format("{:.1f} GiB", bytes / (1024.0 * 1024 * 1024));
}

nlohmann::json ToJson(const std::vector<store::CacheRecord>& caches) {
  nlohmann::json out = nlohmann::json::array();
  for (const store::CacheRecord& c : caches) out.push_back(store::ToJson(c));
  return out;
}

bool MatchesInstalledRecord(const env::Environment& env, const store::Entry& entry,
                            const store::FileRecord& file) {
  const env::Distribution* dist = env.Find(entry.distribution);
  if (!dist) return false;
  const env::RecordEntry* row = dist->FindRecord(file.path);
  Result<std::string> bytes = env::ReadFileBytes(env.site_packages / file.path);
  if (!row) return !bytes;  // the new version no longer ships the file
  if (!bytes || row->hash_algorithm != "sha256") return false;
  return env::Sha256UrlsafeB64(*bytes) == row->hash;
}

}  // namespace archpatch::cli
