// Finding what to patch: the Python environment (its site-packages), the distributions installed
// there (*.dist-info: METADATA name and version, RECORD, INSTALLER), and checks of installed
// files against RECORD.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace archpatch::env {

// One row of a RECORD file: "path,sha256=<urlsafe base64, no padding>,size".
struct RecordEntry {
  std::string path;            // relative to the distribution's root; may start with "../"
  std::string hash_algorithm;  // "sha256"; "" when the row has no hash (RECORD itself, .pyc)
  std::string hash;            // urlsafe base64 without padding, as written
  std::optional<uint64_t> size;
};

struct Distribution {
  std::string name;                 // as written in METADATA: "FlashInfer_Python"
  std::string normalized_name;      // PEP 503: "flashinfer-python"
  std::string version;              // as written in METADATA
  std::string installer;            // INSTALLER's first line ("pip", "uv", "conda"); "" if absent
  std::filesystem::path root;       // the folder holding the .dist-info (site-packages)
  std::filesystem::path dist_info;  // absolute path of the *.dist-info folder
  std::vector<RecordEntry> record;

  const RecordEntry* FindRecord(std::string_view relative_path) const;
};

struct Environment {
  std::filesystem::path site_packages;              // where rule paths resolve and .archpatch/ lives
  std::vector<std::filesystem::path> search_paths;  // site_packages, then platlib if different
  std::string python;                               // the interpreter asked, "" for --site-packages/--root
  bool plain_root = false;                          // --root: a plain tree, distributions optional
  std::vector<Distribution> distributions;          // sorted by normalized_name

  // By any spelling of the name ("FlashInfer_Python" finds "flashinfer-python").
  const Distribution* Find(std::string_view name) const;
};

// How the user named the environment; at most one of the three is set.
struct EnvOptions {
  std::string python;         // --python EXE
  std::string site_packages;  // --site-packages DIR
  std::string root;           // --root DIR
  // false: Environment::distributions is left empty (an audit checks each RECORD beside its scan
  // with CheckRecords: on a GPU environment, parsing them was most of its serial start).
  bool read_distributions = true;
};

// Resolves the options (default: `python3` on PATH) and reads every *.dist-info there.
Result<Environment> Discover(const EnvOptions& options);

// Reads a site-packages folder (or a plain tree when `plain_root`) without running Python.
Result<Environment> LoadSitePackages(const std::filesystem::path& dir, bool plain_root = false,
                                     bool read_distributions = true);

// Asks `python` (run directly, no shell) for sysconfig's purelib and platlib.
Result<std::vector<std::filesystem::path>> AskPythonForSitePackages(const std::string& python);

// PEP 503 normalisation: lowercase, runs of '-', '_', '.' become one '-'.
std::string NormalizeName(std::string_view name);

// Parses RECORD's CSV (quoted fields allowed); errors carry file:line.
Result<std::vector<RecordEntry>> ParseRecord(std::string_view text, const std::string& file_name);

enum class FileState { kOk, kModified, kMissing, kUnchecked /* no hash in RECORD */ };
std::string_view FileStateName(FileState s);  // "ok", "modified", "missing", "unchecked"

struct FileCheck {
  std::string path;  // as in RECORD
  FileState state = FileState::kOk;
  std::string expected_hash;  // RECORD's urlsafe base64
  std::string actual_hash;    // "" when missing
};

// How a RECORD check reads installed files. The audit reads the real filesystem (RealFiles());
// apply's verify reads through its store::Disk, so that it is confined as the other commands
// are and runs on a FakeDisk in tests.
class InstalledFiles {
 public:
  virtual ~InstalledFiles() = default;
  virtual bool Exists(const std::filesystem::path& path) = 0;
  // RECORD's form of the file's SHA-256 (urlsafe base64), read in bounded pieces.
  virtual Result<std::string> RecordHash(const std::filesystem::path& path) = 0;
};
InstalledFiles& RealFiles();

// One file against its RECORD row.
FileCheck VerifyFile(const Distribution& dist, const RecordEntry& entry, InstalledFiles& files = RealFiles());
// Every file of the distribution that is not as RECORD says (modified or missing), sorted by path.
std::vector<FileCheck> ModifiedFiles(const Distribution& dist, InstalledFiles& files = RealFiles());
// The same among the RECORD paths `wanted` accepts (an audit checks the sources it reads).
std::vector<FileCheck> ModifiedFiles(const Distribution& dist, const std::function<bool(std::string_view)>& wanted,
                                     InstalledFiles& files = RealFiles());

// An installed file whose bytes no longer match its distribution's RECORD (edited by hand or by
// another tool; files archpatch patched show here too, `archpatch status` tells them apart).
struct RecordMismatch {
  std::string distribution;    // normalized name
  std::filesystem::path file;  // below site-packages
  std::string state;           // "modified" | "missing"
};
// ModifiedFiles of every distribution of the environment among the paths `wanted` accepts, in
// distribution order.
std::vector<RecordMismatch> RecordMismatches(const Environment& env,
                                             const std::function<bool(std::string_view)>& wanted);
// The same for an environment found without its distributions (an audit's): each *.dist-info of
// env.search_paths (purelib, then platlib) is read, checked and dropped before the next. Held
// together, a GPU environment's RECORDs (188,000 rows, 17 MB) were live through the whole audit.
Result<std::vector<RecordMismatch>> CheckRecords(const Environment& env,
                                                 const std::function<bool(std::string_view)>& wanted);

}  // namespace archpatch::env
