// JIT caches: where packages keep kernels compiled at run time, described in rules/caches.yaml.
// After a gate changes, a stale compiled module would keep the old behaviour (or an empty kernel)
// alive, so apply and revert clear the caches a rule names.
//
// Safety (docs/manifest.md, threat model): clearing removes only what lies inside the declared
// root, through directory file descriptors opened with O_NOFOLLOW (caches_remove.h); a symlink
// inside is unlinked, never followed, and a root that is itself a symlink is refused. A root
// that is "/", the home folder or one of its ancestors is refused, compared on resolved paths
// and on (device, inode), and apply never clears a root that holds a patched file.
// Precision: a cache marked `ninja` keeps one folder per module with a build.ninja (and
// .ninja_deps / *.d depfiles) naming the sources and headers it was built from; there only the
// modules that used a changed file are removed. Other caches are emptied.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "store/disk.h"

namespace archpatch::store {

struct CacheKind {
  std::string name;
  std::string description;
  std::string root;  // template: "${FLASHINFER_WORKSPACE_BASE:-$HOME}/.cache/flashinfer"
  bool ninja = false;
  std::vector<std::string> used_by;  // distributions that write it (documentation only)
};

// rules/caches.yaml: `caches:` followed by a list of kinds. Unknown keys and wrong types are
// errors with file:line:column.
Result<std::vector<CacheKind>> ParseCacheKinds(const std::string& yaml_text, const std::string& file_name);
Result<std::vector<CacheKind>> LoadCacheKinds(const fs::path& yaml_file);
const CacheKind* FindCacheKind(const std::vector<CacheKind>& kinds, const std::string& name);

using EnvLookup = std::function<std::optional<std::string>(const std::string& name)>;
EnvLookup ProcessEnv();  // getenv

// Expands $VAR, ${VAR}, ${VAR:-default} (the default expanded in turn) and a leading '~'.
// A variable that is unset (and has no default) is an error: the root would be wrong.
Result<fs::path> ExpandRoot(const std::string& root_template, const EnvLookup& env);

// Refuses a root that is relative, "/", the home folder ($HOME or the account's) or an ancestor
// of it, by text, by resolved path and by identity.
Status CheckCacheRoot(const fs::path& root, const EnvLookup& env);

struct ClearReport {
  std::string name;
  fs::path root;
  bool exists = false;
  bool whole = false;             // the whole cache was emptied (not module by module)
  std::vector<fs::path> modules;  // ninja module folders removed
  uint64_t files = 0;             // files and symlinks removed
  uint64_t bytes = 0;
};

enum class DryRun { no, yes };

// Clears `kind` under `root` (a resolved path: a symlink at any component is an error). `changed`
// (absolute paths) selects modules in a ninja cache; empty means everything. With DryRun::yes,
// counts what would go and removes nothing.
Result<ClearReport> ClearCache(Disk& disk, const CacheKind& kind, const fs::path& root,
                               const std::vector<fs::path>& changed, DryRun dry_run = DryRun::no);

// The size of a cache (files, bytes) without touching it.
ClearReport MeasureCache(Disk& disk, const CacheKind& kind, const fs::path& root);

}  // namespace archpatch::store

namespace archpatch::store {

// The root of `kind` in this process's environment: expanded, its parent folders resolved, then
// checked by CheckCacheRoot. A root that is itself a symlink is refused, never followed.
Result<fs::path> ResolveCacheRoot(const CacheKind& kind, const EnvLookup& env);

}  // namespace archpatch::store
