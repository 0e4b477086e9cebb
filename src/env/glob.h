// Glob patterns over root-relative paths, for the `file:` of a rule edit: `*` and `?` stay inside
// one path component, `**` crosses '/', and `**/` also matches no folder at all ("a/**/b"
// matches "a/b"); `[abc]`, `[a-z]` and `[!abc]` classes match one character other than '/'.
// Matching takes time linear in the path for a given pattern (a set of pattern positions is
// advanced one character at a time, never backtracking), so no pattern can make it hang.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace archpatch::env {

// Bounds on what a glob may cost: a rule is input, and a hostile one must fail, not hang.
inline constexpr size_t kMaxGlobPatternBytes = 4096;      // PATH_MAX
inline constexpr int kMaxGlobWalkDepth = 64;              // folders below the pattern's literal prefix
inline constexpr size_t kMaxGlobWalkEntries = 2'000'000;  // entries listed by one walk

// Whether `path` matches `pattern` (both '/'-separated). A pattern longer than
// kMaxGlobPatternBytes matches nothing.
bool GlobMatch(std::string_view pattern, std::string_view path);

// Files under `root` whose root-relative path matches `pattern`. Sorted; .archpatch/ is skipped.
// A matching symlink that leads out of root is an error, not a silent skip: a hostile tree must
// not be half-patched. The pattern itself must pass CheckRelativePath. A walk deeper than
// kMaxGlobWalkDepth or longer than kMaxGlobWalkEntries is an error (never a partial list).
Result<std::vector<std::string>> GlobInside(const std::filesystem::path& root, std::string_view pattern);

}  // namespace archpatch::env
