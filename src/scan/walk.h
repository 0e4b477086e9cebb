// Which files an audit reads: PATHs as given, directories walked recursively (sorted), skipping
// version-control and build folders and never following a symlinked directory.
#pragma once

#include <string>
#include <vector>

#include "util/result.h"

namespace archpatch::scan {

// Folders never entered: .git .hg .svn __pycache__ node_modules CMakeFiles build build-*
// cmake-build-* .tox .mypy_cache .pytest_cache.
bool IsSkippedDirectory(std::string_view name);

// Folders an audit leaves out unless asked to keep them (--keep-tests): tests test benchmarks
// benchmark docs examples. Their gates keep no user's deployment out.
bool IsNonShippingDirectory(std::string_view name);

// Test files outside such folders, left out as well: test_*.py, *_test.py, conftest.py,
// *_test.{cc,cu,cpp}.
bool IsTestFileName(std::string_view name);

struct WalkOptions {
  bool keep_tests = false;      // enter IsNonShippingDirectory folders too
  bool skip_setup_py = false;   // environment audits: setup.py files are build scripts, not the package
};

// The files to scan: a PATH naming a file is taken whatever its name; under a directory, only
// files scan::KindOf recognises. A PATH that does not exist is an error (usage, exit 2);
// unreadable folders met on the way become `warnings`.
struct FileList {
  std::vector<std::string> files;
  std::vector<Error> warnings;
};
Result<FileList> CollectFiles(const std::vector<std::string>& paths, const WalkOptions& options = {});

}  // namespace archpatch::scan
