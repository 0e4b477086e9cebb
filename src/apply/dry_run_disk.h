// DryRunDisk: the Disk of `apply --dry-run` and `--check` (ninja's DryRunCommandRunner). Reads go
// to the real Disk underneath; writes are recorded in memory instead of made, and later reads
// see them. A dry run therefore runs the very code of a real run, recovery, transaction, bytecode
// and cache clearing included, and reports what that run would do; the Disk underneath is never
// written.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "store/disk.h"

namespace archpatch::apply {

class DryRunDisk : public store::Disk {
 public:
  explicit DryRunDisk(store::Disk& inner) : inner_(inner) {}

  Result<std::string> Read(const store::fs::path& path) override;
  store::FileInfo Stat(const store::fs::path& path) override;
  Result<std::vector<std::string>> List(const store::fs::path& dir) override;
  // Reads go through the real Disk, so they are confined as a real run's are.
  void ConfineBelow(const store::fs::path& root) override { inner_.ConfineBelow(root); }
  using store::Disk::Replace;
  Status Replace(const store::fs::path& path, std::string_view bytes, const store::ReplaceOptions& options) override;
  Status Remove(const store::fs::path& path) override;
  Status RemoveDir(const store::fs::path& path) override;
  Status MakeDirs(const store::fs::path& path) override;

  // The writes the run would have made, in order ("replace PATH", "remove PATH", ...).
  const std::vector<std::string>& writes() const { return writes_; }

 private:
  store::Disk& inner_;
  std::map<store::fs::path, std::string> files_;  // written
  std::set<store::fs::path> dirs_;                // made
  std::set<store::fs::path> gone_;                // removed
  std::vector<std::string> writes_;
};

}  // namespace archpatch::apply
