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

// Whether the file's first 4 KiB hold a NUL byte: what no C++, CUDA or Python source holds, and
// every ELF, cubin and fatbin does (git's test for a binary file). Unreadable: false.
bool LooksBinary(const std::string& path);

struct WalkOptions {
  bool keep_tests = false;     // enter IsNonShippingDirectory folders too
  bool skip_setup_py = false;  // environment audits: setup.py files are build scripts, not the package
};

// The files to scan: a PATH naming a file is taken whatever its name unless its bytes are binary;
// under a directory, only files scan::KindOf recognises. A PATH that does not exist is an error (usage, exit 2);
// unreadable folders met on the way become `warnings`.
struct FileList {
  std::vector<std::string> files;
  // Per file, its size when walked (0 when it could not be read): the audit's rounds take the
  // largest first.
  std::vector<size_t> sizes;
  // PATHs naming a file whose first bytes are binary (an ELF library, a cubin, a fatbin): not
  // source, never handed to the scanners (libclang took 14 GB and 4 minutes on libcublasLt.so);
  // the audit reports their kernel images instead (binary/).
  std::vector<std::string> named_binaries;
  std::vector<Error> warnings;
};
Result<FileList> CollectFiles(const std::vector<std::string>& paths, const WalkOptions& options = {});

}  // namespace archpatch::scan
