// The library entry point of `archpatch audit --binaries`: walk the given paths, read every
// CUDA binary, and judge each against the target arches, with totals per distribution.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "arch/arch.h"
#include "binary/coverage.h"
#include "binary/image.h"
#include "binary/owners.h"
#include "binary/reader.h"
#include "util/result.h"

namespace archpatch::binary {

struct ScanOptions {
  std::vector<arch::Arch> targets;  // at least one
  ReadOptions read;
  // Owners of files by path. When null, each directory scanned that holds *.dist-info folders
  // (a site-packages) is read for its RECORDs.
  const OwnerMap* owners = nullptr;
  // Whether a file named directly that is not a CUDA binary is an error (binaries-only runs) or
  // passed over (audits that also scan sources, where most named files are not binaries).
  bool named_files_must_be_binaries = true;
};

struct FileReport {
  BinaryFile file;
  std::string display_path;  // relative to the scanned directory, or as given
  std::string distribution;  // "" when no RECORD lists the file
  std::string version;
  std::vector<Coverage> coverage;  // one per target, in ScanOptions::targets order
};

struct Totals {
  size_t files = 0, native = 0, ptx_jit = 0, no_image = 0, runtime_built = 0;
  void Add(CoverageStatus status);
};

struct DistributionTotals {
  std::string name;  // "" for files no distribution owns
  std::string version;
  std::vector<Totals> per_target;
};

struct BinaryScan {
  std::vector<std::string> targets;               // "sm_120"
  std::vector<FileReport> files;                  // files with kernel images, sorted by path
  std::vector<DistributionTotals> distributions;  // sorted by name, unowned last
  std::vector<Totals> totals;                     // per target
  std::vector<Error> errors;                      // files named on the command line that could not be read
  size_t files_examined = 0;                      // candidates opened (.so, .cubin, .fatbin, .ptx)
  uint64_t bytes_examined = 0;                    // their total size
  uint64_t bytes_read = 0;                        // what reading them touched

  bool AnyNoImage() const;
};

// Whether a directory entry is worth opening: *.so, *.so.N, *.cubin, *.fatbin, *.ptx.
bool IsCandidateName(const std::string& file_name);

// Scans files and directories (recursively; symlinked directories are not followed). Files
// named directly are always read and their errors reported; in directories only candidates are
// read and files that are not CUDA binaries are passed over quietly.
BinaryScan ScanBinaries(const std::vector<std::string>& paths, const ScanOptions& options);

}  // namespace archpatch::binary
