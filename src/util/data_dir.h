// archpatch's data folder: the one holding rules/ (the shipped rule files, caches.yaml,
// features.yaml, known-unsafe.yaml). One lookup serves rules and tables alike, and it starts from
// the binary's own location (/proc/self/exe, symlinks resolved), so a build tree, an installed prefix (the .deb's
// /usr, `cmake --install --prefix P`) and an unpacked tarball all work wherever they lie, with no
// environment variable (docs/deploy.md, "Where archpatch finds its data").
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "util/result.h"

namespace archpatch {

struct DataDir {
  std::filesystem::path path;  // holds rules/
  std::string found_by;        // how it was found, for `archpatch --version`

  std::filesystem::path rules() const { return path / "rules"; }
  std::filesystem::path features() const { return rules() / "features.yaml"; }
  std::filesystem::path caches() const { return rules() / "caches.yaml"; }
  std::filesystem::path known_unsafe() const { return rules() / "known-unsafe.yaml"; }
};

// Where the data folder is looked for, in order, for a binary at `exe`:
//   $ARCHPATCH_DATA_DIR                    an override, never needed (`env_override`, may be null);
//   <exe dir>/../share/archpatch           installed prefix, .deb (/usr), unpacked tarball;
//   <exe dir>/share/archpatch              build tree (CMake links its rules/ to the source rules/);
//   /usr/local/share/archpatch, /usr/share/archpatch
//                                          a copy of the binary run away from its tree, such as the
//                                          one Ansible copies to a host to run it as a module.
std::vector<DataDir> DataDirCandidates(const std::filesystem::path& exe, const char* env_override);

// The first candidate holding rules/features.yaml. A set $ARCHPATCH_DATA_DIR that holds none is an
// error rather than skipped, so a mistyped override does not silently pick another tree's rules.
Result<DataDir> LocateDataDir(const std::filesystem::path& exe, const char* env_override);

// LocateDataDir for this process (/proc/self/exe, $ARCHPATCH_DATA_DIR), looked up once.
const Result<DataDir>& FindDataDir();

}  // namespace archpatch
