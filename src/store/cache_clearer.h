// The CacheClearer apply and revert use: for each cache kind an entry names, resolve its root and
// clear the modules built from the changed files. A problem with one cache (unknown kind, a root
// that is refused) is a warning, never a reason to undo a correct patch.
#pragma once

#include <string>
#include <vector>

#include "store/caches.h"
#include "store/transaction.h"

namespace archpatch::store {

CacheClearer MakeCacheClearer(Disk& disk, std::vector<CacheKind> kinds, EnvLookup env,
                              std::vector<std::string>* warnings);

}  // namespace archpatch::store
