// Which installed distribution a file the audit reports belongs to, and its path relative to the
// folder holding that distribution's dist-info (what a rule's `file` names).
#pragma once

#include <filesystem>
#include <string>

#include "env/environment.h"

namespace archpatch::suggest {

struct Owned {
  const env::Distribution* distribution = nullptr;  // nullptr: no distribution owns the file
  std::string relative;                             // '/'-separated, relative to distribution->root
  std::string how;  // "RECORD", "top_level.txt", "name": how the owner was found (for notes)
};

// The distribution whose RECORD lists `file` (env::Distribution::FindRecord); failing that
// (a tree laid out by hand or by scripts/stage_release.sh has no RECORD), the one whose
// top_level.txt names the file's first folder, then the only one whose name is that folder or
// starts with it and '-' ("flashinfer" -> flashinfer-python).
Owned OwnerOf(const env::Environment& env, const std::filesystem::path& file);

}  // namespace archpatch::suggest
