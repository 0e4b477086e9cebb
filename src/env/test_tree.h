// Temporary trees for env's tests (test-only header).
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace archpatch::env::testing {

class TempTree {
 public:
  TempTree() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "archpatch_env_XXXXXX").string();
    root_ = mkdtemp(tmpl.data());
  }
  ~TempTree() { std::filesystem::remove_all(root_); }
  const std::filesystem::path& root() const { return root_; }
  std::filesystem::path Write(const std::string& relative, const std::string& bytes) const {
    std::filesystem::path p = root_ / relative;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << bytes;
    return p;
  }

 private:
  std::filesystem::path root_;
};

}  // namespace archpatch::env::testing
