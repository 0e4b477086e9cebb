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

}  // namespace archpatch::env
