// What apply, revert, status, verify and caches share: the environment options, cache kinds,
// $PYTHONPYCACHEPREFIX, recovery of half-done transactions, and output helpers.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/options.h"
#include "env/environment.h"
#include "store/caches.h"
#include "store/transaction.h"

namespace archpatch::cli {

// --python EXE | --site-packages DIR | --root DIR.
void AddEnvOptions(po::options_description& desc);
// Discovers the environment; a failure is an input error (exit 2).
env::Environment DiscoverEnvironment(const po::variables_map& vars);

// Cache kinds from the first caches.yaml found in the rule directories (none: empty list).
std::vector<store::CacheKind> LoadCacheKindsOrWarn();
std::optional<std::filesystem::path> PycachePrefix();

// Rolls back a transaction an earlier run left half done, telling the user on stderr.
store::RecoveryOutcome RecoverOrThrow(store::StateDir& state, const store::TransactionOptions& options);
nlohmann::json ToJson(const store::RecoveryOutcome& r);

// "12.3 KiB".
std::string HumanBytes(uint64_t bytes);
nlohmann::json ToJson(const std::vector<store::CacheRecord>& caches);

// Whether the file's current bytes are what the installed distribution's RECORD says (an
// upgrade or reinstall replaced them); a file the new RECORD no longer lists counts too.
bool MatchesInstalledRecord(const env::Environment& env, const store::Entry& entry,
                            const store::FileRecord& file);

}  // namespace archpatch::cli
