// Path safety for everything a rule or plan names: a relative path must stay inside its root.
// Refused: absolute paths, any ".." component, and symlinks (at any component) whose target
// leads out of the root. Every stage that opens a file named by a rule goes through here.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace archpatch::env {

// `root / relative` when it stays inside `root` (checked with lstat/realpath component by
// component). The file need not exist; existing components are checked.
Result<std::filesystem::path> ResolveInside(const std::filesystem::path& root,
                                            std::string_view relative);

// Whether `relative` is syntactically safe: not empty, not absolute, no ".." component, no NUL.
Status CheckRelativePath(std::string_view relative);

// Files under `root` whose root-relative path ('/'-separated) matches the glob `pattern`
// (`*` and `?` do not cross '/', `**` does, `[abc]` classes). Sorted; .archpatch/ is skipped.
// A matching symlink that leads out of root is an error, not a silent skip: a hostile tree must
// not be half-patched. The pattern itself must pass CheckRelativePath.
Result<std::vector<std::string>> GlobInside(const std::filesystem::path& root,
                                            std::string_view pattern);

// fnmatch-like match used by GlobInside.
bool GlobMatch(std::string_view pattern, std::string_view path);

}  // namespace archpatch::env
