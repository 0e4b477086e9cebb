#include "scan/walk.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>

#include <fmt/format.h>

#include "scan/scan.h"
#include "util/parallel.h"

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

// What the walk does with one entry: keeps a source file in `out`; true for a folder to enter
// (never a symlinked one: is_directory would follow it).
bool Take(const fs::directory_entry& entry, const WalkOptions& options, FileList& out) {
  std::error_code ec;
  if (entry.is_symlink(ec) && entry.is_directory(ec)) return false;
  if (entry.is_directory(ec)) {
    const std::string name = entry.path().filename().string();
    return !IsSkippedDirectory(name) && (options.keep_tests || !IsNonShippingDirectory(name));
  }
  if (options.skip_setup_py && entry.path().filename() == "setup.py") return false;
  if (!options.keep_tests && IsTestFileName(entry.path().filename().string())) return false;
  std::string path = entry.path().string();
  if (entry.is_regular_file(ec) && KindOf(path) != FileKind::kOther) {
    const std::uintmax_t size = entry.file_size(ec);
    out.files.push_back(std::move(path));
    out.sizes.push_back(ec ? 0 : static_cast<size_t>(size));
  }
  return false;
}

Error CannotRead(const fs::path& root, const std::error_code& ec) {
  return Error{fmt::format("cannot read directory: {}", ec.message()), Location{root.string()}};
}

// Everything below `dir`, a folder Take entered; problems are reported at `root`, the PATH.
void WalkBelow(const fs::path& dir, const fs::path& root, const WalkOptions& options, FileList& out) {
  std::error_code ec;
  fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
  if (ec) return out.warnings.push_back(CannotRead(root, ec));
  for (; it != end; it.increment(ec)) {
    if (ec) return out.warnings.push_back(CannotRead(root, ec));
    if (!Take(*it, options, out) && it->is_directory(ec)) it.disable_recursion_pending();
  }
}

// The folders right under `root` are walked on all cores: a GPU environment's 68,849 files took
// 200 ms to list on one thread (libstdc++'s iterator builds a path per entry), all of it before
// the first file was read.
void Walk(const fs::path& root, const WalkOptions& options, FileList& out) {
  std::error_code ec;
  fs::directory_iterator it(root, fs::directory_options::skip_permission_denied, ec), end;
  if (ec) return out.warnings.push_back(CannotRead(root, ec));
  std::vector<fs::path> below;
  for (; it != end; it.increment(ec)) {
    if (ec) {
      out.warnings.push_back(CannotRead(root, ec));
      break;
    }
    if (Take(*it, options, out)) below.push_back(it->path());
  }
  std::vector<FileList> parts(below.size());
  const int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  ParallelFor(below.size(), threads, [&](size_t k) { WalkBelow(below[k], root, options, parts[k]); });
  for (FileList& part : parts) {
    std::move(part.files.begin(), part.files.end(), std::back_inserter(out.files));
    out.sizes.insert(out.sizes.end(), part.sizes.begin(), part.sizes.end());
    std::move(part.warnings.begin(), part.warnings.end(), std::back_inserter(out.warnings));
  }
}

// The files from `first` on sorted by path, each with its size.
void SortFrom(size_t first, FileList& out) {
  std::vector<size_t> order(out.files.size() - first);
  for (size_t i = 0; i < order.size(); ++i) order[i] = first + i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return out.files[a] < out.files[b]; });
  std::vector<std::string> files;
  std::vector<size_t> sizes;
  for (size_t i : order) files.push_back(std::move(out.files[i])), sizes.push_back(out.sizes[i]);
  std::move(files.begin(), files.end(), out.files.begin() + static_cast<std::ptrdiff_t>(first));
  std::copy(sizes.begin(), sizes.end(), out.sizes.begin() + static_cast<std::ptrdiff_t>(first));
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
      SortFrom(first, out);
    } else if (KindOf(p) == FileKind::kOther && LooksBinary(p)) {
      out.named_binaries.push_back(p);
    } else {
      const std::uintmax_t size = fs::file_size(p, ec);
      out.files.push_back(p);
      out.sizes.push_back(ec ? 0 : static_cast<size_t>(size));
    }
  }
  return out;
}

}  // namespace archpatch::scan
