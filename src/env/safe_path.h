// The one path-safety policy (docs/manifest.md, "Threat model"), for every path archpatch may
// open or write below a root: named by a rule, a plan, or read back from its own state
// (manifest.json, journal.json). A path is refused when it
//   - is empty, absolute, holds a NUL byte or a ".." component;
//   - names archpatch's state folder (.archpatch, in any letter case, at any depth): no rule,
//     plan or state entry can edit the manifest, the journal or a backup;
//   - passes through a symlink at any component below the root (the root itself may be one).
// The planner checks with the real filesystem (ResolveInside); the store checks the same policy
// through its Disk (store::CheckEditablePath), and its real Disk enforces it again at write time
// by opening every component with O_NOFOLLOW (store/beneath.h).
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace archpatch::env {

// The name of archpatch's state folder under a root (store/state_dir.h).
inline constexpr std::string_view kStateDirName = ".archpatch";

// Whether one path component names the state folder (compared without letter case, for
// case-insensitive filesystems).
bool IsStateDirName(std::string_view component);

// The syntactic half of the policy: not empty, not absolute, no ".." component, no NUL, no
// component naming the state folder.
Status CheckRelativePath(std::string_view relative);

enum class EntryKind { missing, directory, file, symlink, other };
// What lstat(2) says about a path (a final symlink is not followed).
using LstatFunction = std::function<EntryKind(const std::filesystem::path&)>;

// The whole policy: CheckRelativePath, then every existing component of `root / relative` is
// looked at with `lstat` and none may be a symlink. Returns `root / relative` (normalised:
// no "." or empty components). Components that do not exist yet are fine.
Result<std::filesystem::path> CheckInside(const std::filesystem::path& root, std::string_view relative,
                                          const LstatFunction& lstat);

// CheckInside on the real filesystem, below the canonical `root`.
Result<std::filesystem::path> ResolveInside(const std::filesystem::path& root, std::string_view relative);

}  // namespace archpatch::env
