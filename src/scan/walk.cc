#include "scan/walk.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "scan/scan.h"

namespace archpatch::scan {
namespace fs = std::filesystem;

bool IsSkippedDirectory(std::string_view name) {
  static constexpr std::string_view kNames[] = {".git",       ".hg",   ".svn", "__pycache__", "node_modules",
                                                "CMakeFiles", "build", ".tox", ".mypy_cache", ".pytest_cache"};
  for (std::string_view n : kNames) {
    if (name == n) return true;
  }
  return name.starts_with("build-") || name.starts_with("cmake-build-");
}

bool IsNonShippingDirectory(std::string_view name) {
  static constexpr std::string_view kNames[] = {"tests", "test", "benchmarks", "benchmark", "docs", "examples"};
  return std::find(std::begin(kNames), std::end(kNames), name) != std::end(kNames);
}

bool IsTestFileName(std::string_view name) {
  if (name == "conftest.py" || (name.starts_with("test_") && name.ends_with(".py"))) return true;
  // flash-attention keeps benchmark_flash_attention_fp8.py beside its modules: no serving path.
  if (name.starts_with("benchmark_") && name.ends_with(".py")) return true;
  for (std::string_view suffix : {"_test.py", "_test.cc", "_test.cu", "_test.cpp"}) {
    if (name.ends_with(suffix)) return true;
  }
  return false;
}

bool LooksBinary(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char head[4096];
  in.read(head, sizeof head);
  return std::memchr(head, '\0', static_cast<size_t>(in.gcount())) != nullptr;
}

namespace {

void Walk(const fs::path& root, const WalkOptions& options, FileList& out) {
  std::error_code ec;
  fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec), end;
  if (ec) {
    out.warnings.push_back(Error{fmt::format("cannot read directory: {}", ec.message()), Location{root.string()}});
    return;
  }
  for (; it != end; it.increment(ec)) {
    if (ec) {
      out.warnings.push_back(Error{fmt::format("cannot read directory: {}", ec.message()), Location{root.string()}});
      break;
    }
    const fs::directory_entry& entry = *it;
    // A symlink to a directory is not followed (is_directory would follow it).
    if (entry.is_symlink(ec) && entry.is_directory(ec)) continue;
    if (entry.is_directory(ec)) {
      const std::string name = entry.path().filename().string();
      if (IsSkippedDirectory(name) || (!options.keep_tests && IsNonShippingDirectory(name))) {
        it.disable_recursion_pending();
      }
      continue;
    }
    if (options.skip_setup_py && entry.path().filename() == "setup.py") continue;
    if (!options.keep_tests && IsTestFileName(entry.path().filename().string())) continue;
    std::string path = entry.path().string();
    if (entry.is_regular_file(ec) && KindOf(path) != FileKind::kOther) out.files.push_back(std::move(path));
  }
}

}  // namespace

Result<FileList> CollectFiles(const std::vector<std::string>& paths, const WalkOptions& options) {
  FileList out;
  for (const std::string& p : paths) {
    std::error_code ec;
    fs::file_status status = fs::status(p, ec);
    if (ec || !fs::exists(status)) return Error{"no such file or directory", Location{p}};
    if (fs::is_directory(status)) {
      size_t first = out.files.size();
      Walk(p, options, out);
      std::sort(out.files.begin() + first, out.files.end());
    } else if (KindOf(p) == FileKind::kOther && LooksBinary(p)) {
      out.named_binaries.push_back(p);
    } else {
      out.files.push_back(p);
    }
  }
  return out;
}

}  // namespace archpatch::scan
