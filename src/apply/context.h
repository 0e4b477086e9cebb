// What apply and revert need from the world around the store: the cache kinds of
// rules/caches.yaml, $PYTHONPYCACHEPREFIX, the transaction options made of them, and whether an
// installed file is what its distribution's RECORD says.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "env/environment.h"
#include "store/caches.h"
#include "store/transaction.h"

namespace archpatch::apply {

// Cache kinds from the first caches.yaml of the rule directories. None found: a warning (the
// caches rules name cannot be cleared) and no kinds; an invalid one is an input error (exit 2).
std::vector<store::CacheKind> LoadCacheKindsOrWarn();
std::optional<std::filesystem::path> PycachePrefix();

// How a command treats JIT caches and bytecode.
struct StoreOptions {
  bool clear_caches = true;  // --no-clear-cache: false
  std::optional<std::filesystem::path> pycache_prefix;
  std::vector<store::CacheKind> cache_kinds;
};
// From the process: LoadCacheKindsOrWarn (only when caches are cleared) and PycachePrefix.
StoreOptions StoreOptionsFromProcess(bool clear_caches);

// The transaction options over `disk`; cache-clearing warnings are appended to `notes`.
store::TransactionOptions MakeTransactionOptions(store::Disk& disk, const StoreOptions& options,
                                                 std::vector<std::string>* notes);

// Whether the file's current bytes are what the installed distribution's RECORD says (an
// upgrade or reinstall replaced them); a file the new RECORD no longer lists counts too.
bool MatchesInstalledRecord(store::Disk& disk, const env::Environment& env, const store::Entry& entry,
                            const store::FileRecord& file);

// "12.3 KiB".
std::string HumanBytes(uint64_t bytes);

}  // namespace archpatch::apply
