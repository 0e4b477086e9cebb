// Which installed distribution owns a file: read from *.dist-info/RECORD (PEP 376/627), so a
// site-packages scan can total its binaries per distribution ("torch 2.11.0: 3 no-image").
#pragma once

#include <filesystem>
#include <string>
#include <unordered_map>

namespace archpatch::binary {

struct Owner {
  std::string name;     // METADATA's Name, as written
  std::string version;  // METADATA's Version
};

class OwnerMap {
 public:
  // Records that `file` (any spelling; it is made absolute and normal) belongs to `owner`.
  void Add(const std::filesystem::path& file, const Owner& owner);
  const Owner* Find(const std::filesystem::path& file) const;
  bool empty() const { return owners_.empty(); }

  // Reads every *.dist-info directly under `dir`: METADATA for the name and version, RECORD for
  // the files. Unreadable or malformed ones are skipped (a scan must not stop on them).
  static OwnerMap FromSitePackages(const std::filesystem::path& dir);

 private:
  std::unordered_map<std::string, Owner> owners_;  // key: lexically normal absolute path
};

}  // namespace archpatch::binary
