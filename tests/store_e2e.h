// Helpers for the store's end-to-end tests: a copy of tests/fixtures/store/site-packages in a
// temporary folder, a snapshot of every byte in it, and the environment archpatch runs with.
#pragma once

#include <map>

#include <nlohmann/json.hpp>

#include "e2e.h"

namespace archpatch::e2e {

inline std::filesystem::path StoreFixture(const std::string& relative) {
  return std::filesystem::path(ARCHPATCH_SOURCE_DIR) / "tests/fixtures/store" / relative;
}

inline std::string Rule(const std::string& id) { return StoreFixture("rules/" + id + ".yaml").string(); }

enum class WithState { no, yes };

// Every file under `root` (symlinks as "-> target"), except archpatch's own state folder unless
// `state` says yes.
inline std::map<std::string, std::string> Snapshot(const std::filesystem::path& root, WithState state = WithState::no) {
  std::map<std::string, std::string> files;
  for (auto it = std::filesystem::recursive_directory_iterator(root);
       it != std::filesystem::recursive_directory_iterator(); ++it) {
    std::string rel = std::filesystem::relative(it->path(), root).string();
    if (state == WithState::no && rel.starts_with(".archpatch")) {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_symlink()) {
      files[rel] = "-> " + std::filesystem::read_symlink(it->path()).string();
      it.disable_recursion_pending();
    } else if (it->is_regular_file()) {
      files[rel] = ReadFile(it->path());
    }
  }
  return files;
}

// A fresh copy of the fixture environment, with HOME and the FlashInfer cache inside it.
class StoreEnv {
 public:
  StoreEnv() {
    std::filesystem::copy(StoreFixture("site-packages"), site(), std::filesystem::copy_options::recursive);
    std::filesystem::create_directories(home());
  }
  std::filesystem::path site() const { return dir_.path() / "site-packages"; }
  std::filesystem::path home() const { return dir_.path() / "home"; }
  std::filesystem::path cache() const { return home() / ".cache/flashinfer"; }
  std::filesystem::path file(const std::string& rel) const { return site() / rel; }
  const std::filesystem::path& dir() const { return dir_.path(); }

  // "HOME=... FLASHINFER_WORKSPACE_BASE= ... " for RunArchpatch.
  std::string Env(const std::string& extra = "") const {
    return "HOME=" + ShellQuote(home().string()) + " FLASHINFER_WORKSPACE_BASE= " + extra + " ";
  }
  RunResult Run(std::vector<std::string> args, const std::string& extra_env = "") const {
    args.push_back("--site-packages");
    args.push_back(site().string());
    return RunArchpatch(args, Env(extra_env));
  }
  nlohmann::json Manifest() const { return nlohmann::json::parse(ReadFile(site() / ".archpatch/manifest.json")); }

 private:
  TempDir dir_;
};

}  // namespace archpatch::e2e
