// Helpers for end-to-end tests: run the real archpatch binary, capture what a user would see.
#pragma once

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>

#include <gtest/gtest.h>

namespace archpatch::e2e {

struct RunResult {
  int exit_code = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

inline std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline void WriteFile(const std::filesystem::path& path, const std::string& bytes) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary);
  out << bytes;
}

inline std::string ShellQuote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// Runs `archpatch ARGS` (args are shell-quoted one by one) with `env` prefixed verbatim
// (for example "HOME=/tmp/x "), from the source tree's root.
inline RunResult RunArchpatch(const std::vector<std::string>& args, const std::string& env = "") {
  static int counter = 0;
  auto dir = std::filesystem::temp_directory_path();
  auto out_path = dir / ("archpatch_e2e_out_" + std::to_string(getpid()) + "_" + std::to_string(++counter));
  auto err_path = out_path.string() + ".err";
  std::string cmd = "cd " + ShellQuote(ARCHPATCH_SOURCE_DIR) + " && " + env + ShellQuote(ARCHPATCH_BINARY);
  for (const std::string& a : args) cmd += " " + ShellQuote(a);
  cmd += " >" + ShellQuote(out_path.string()) + " 2>" + ShellQuote(err_path) + " </dev/null";
  int status = std::system(cmd.c_str());
  RunResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = ReadFile(out_path);
  r.err = ReadFile(err_path);
  std::filesystem::remove(out_path);
  std::filesystem::remove(err_path);
  return r;
}

// A fresh temporary directory, removed when the object goes out of scope.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "archpatch_test_XXXXXX").string();
    path_ = mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::permissions(path_, std::filesystem::perms::owner_all, std::filesystem::perm_options::add, ec);
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace archpatch::e2e
