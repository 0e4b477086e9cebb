// Stale bytecode: after a .py changes, CPython may still load its old __pycache__/*.pyc, since a
// timestamp pyc is checked only against the source's size and mtime (equal after an edit that
// keeps the length, or when an installer pins mtimes) and an unchecked-hash pyc is never checked.
// So the store removes every cached compilation of a source it rewrites: each interpreter tag and
// optimisation level, beside the source and under $PYTHONPYCACHEPREFIX.
#pragma once

#include <optional>
#include <vector>

#include "store/disk.h"

namespace archpatch::store {

// The pyc files that may hold a compilation of `source` (absolute path to a .py).
// `pycache_prefix` is $PYTHONPYCACHEPREFIX when set.
std::vector<fs::path> CachedBytecodeFor(Disk& disk, const fs::path& source,
                                        const std::optional<fs::path>& pycache_prefix);

// Removes them; returns what was removed.
Result<std::vector<fs::path>> RemoveCachedBytecode(Disk& disk, const fs::path& source,
                                                   const std::optional<fs::path>& pycache_prefix);

}  // namespace archpatch::store
