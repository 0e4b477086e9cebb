#include "scan/walk.h"

#include <algorithm>
#include <condition_variable>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <optional>
#include <queue>
#include <system_error>
#include <thread>
#include <tuple>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

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

Error CannotRead(const std::string& dir, int error) {
  return Error{fmt::format("cannot read directory: {}", std::error_code(error, std::generic_category()).message()),
               Location{dir}};
}

// A folder to list, and the PATH it is under.
struct Folder {
  std::string dir;
  size_t root;
};

// The folders still to list, shared by the walk's threads: each takes one, lists it and puts
// back the folders it holds, until none is left and no thread is listing (which could add more).
class FolderQueue {
 public:
  explicit FolderQueue(std::vector<Folder> roots) : folders_(std::move(roots)) {}

  std::optional<Folder> Take() {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return !folders_.empty() || listing_ == 0; });
    if (folders_.empty()) return std::nullopt;
    Folder folder = std::move(folders_.back());
    folders_.pop_back();
    ++listing_;
    return folder;
  }
  // Wakes a waiting thread for each folder found, or all of them once the walk is over: every
  // thread woken at each folder listed (435 of them on FlashInfer + CUTLASS, 16 threads) mostly
  // found nothing to take and slept again.
  void Done(std::vector<Folder>& found) {
    const size_t added = found.size();
    bool over = false;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      std::move(found.begin(), found.end(), std::back_inserter(folders_));
      --listing_;
      over = folders_.empty() && listing_ == 0;
    }
    found.clear();
    if (over) return changed_.notify_all();
    for (size_t i = 0; i < added; ++i) changed_.notify_one();
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<Folder> folders_;
  size_t listing_ = 0;
};

// An open folder, listed entry by entry; its entries are looked at relative to it (fstatat on the
// folder's descriptor): std::filesystem stat'ed each file by its whole path, every component
// looked up again, and built a path object per entry.
class OpenFolder {
 public:
  // A subfolder is opened with O_NOFOLLOW: one replaced by a symlink since it was listed is not
  // entered. A PATH is opened as given.
  OpenFolder(const std::string& dir, bool is_root)
      : fd_(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC | (is_root ? 0 : O_NOFOLLOW))) {
    if (fd_ < 0) {
      error_ = errno;
      return;
    }
    dir_ = ::fdopendir(fd_);
    if (!dir_) {
      error_ = errno;
      ::close(fd_);
      fd_ = -1;
    }
  }
  ~OpenFolder() {
    if (dir_) ::closedir(dir_);
  }
  OpenFolder(const OpenFolder&) = delete;
  OpenFolder& operator=(const OpenFolder&) = delete;

  bool ok() const { return dir_ != nullptr; }
  int error() const { return error_; }  // errno of the open that failed
  int fd() const { return fd_; }
  // The next entry but . and .., nullptr at the end or on an error (errno then non-zero).
  const dirent* Next() {
    errno = 0;
    while (const dirent* entry = ::readdir(dir_)) {
      if (std::strcmp(entry->d_name, ".") != 0 && std::strcmp(entry->d_name, "..") != 0) return entry;
    }
    return nullptr;
  }

 private:
  int fd_ = -1;
  DIR* dir_ = nullptr;
  int error_ = 0;
};

// `name` in `dir`, as std::filesystem joins them ("tree/" and "x" make "tree/x").
std::string Join(std::string_view dir, std::string_view name) {
  return dir.ends_with('/') ? fmt::format("{}{}", dir, name) : fmt::format("{}/{}", dir, name);
}

// What an entry is, without following a symlink (the type readdir gave, else lstat's).
unsigned char TypeOf(const OpenFolder& folder, const dirent& entry) {
  if (entry.d_type != DT_UNKNOWN) return entry.d_type;
  struct stat st;
  if (::fstatat(folder.fd(), entry.d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) return DT_UNKNOWN;
  if (S_ISDIR(st.st_mode)) return DT_DIR;
  if (S_ISLNK(st.st_mode)) return DT_LNK;
  return S_ISREG(st.st_mode) ? DT_REG : DT_UNKNOWN;
}

// What the walk does with one entry: keeps a source file (a symlink to one too) in `out`; true for
// a folder to enter (never a symlinked one).
bool Take(const OpenFolder& folder, const std::string& dir, const dirent& entry, const WalkOptions& options,
          FileList& out) {
  const std::string_view name = entry.d_name;
  const unsigned char type = TypeOf(folder, entry);
  if (type == DT_DIR) return !IsSkippedDirectory(name) && (options.keep_tests || !IsNonShippingDirectory(name));
  if (type != DT_REG && type != DT_LNK) return false;
  if (options.skip_setup_py && name == "setup.py") return false;
  if (!options.keep_tests && IsTestFileName(name)) return false;
  if (KindOf(name) == FileKind::kOther) return false;
  struct stat st;  // followed: a symlink to a source file is read as that file
  if (::fstatat(folder.fd(), entry.d_name, &st, 0) != 0 || !S_ISREG(st.st_mode)) return false;
  out.files.push_back(Join(dir, name));
  out.sizes.push_back(static_cast<size_t>(st.st_size));
  return false;
}

// One folder's entries: its files into out[root], the folders to enter into `found`. A folder
// that cannot be listed is a warning naming it (its files could hold gates the report then lacks).
void List(const Folder& folder, const std::vector<fs::path>& roots, const WalkOptions& options,
          std::vector<FileList>& out, std::vector<Folder>& found) {
  FileList& files = out[folder.root];
  OpenFolder open(folder.dir, folder.dir == roots[folder.root].native());
  if (!open.ok()) return files.warnings.push_back(CannotRead(folder.dir, open.error()));
  while (const dirent* entry = open.Next()) {
    if (Take(open, folder.dir, *entry, options, files))
      found.push_back(Folder{Join(folder.dir, entry->d_name), folder.root});
  }
  if (errno != 0) files.warnings.push_back(CannotRead(folder.dir, errno));
}

// A thread's files sorted by path, each with its size.
void SortByPath(FileList& list) {
  std::vector<size_t> order(list.files.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return list.files[a] < list.files[b]; });
  FileList sorted;
  for (size_t i : order) sorted.files.push_back(std::move(list.files[i])), sorted.sizes.push_back(list.sizes[i]);
  list.files = std::move(sorted.files);
  list.sizes = std::move(sorted.sizes);
}

// The threads' sorted files of one root merged in path order, with their warnings. Sorting all
// of them after the walk, on one thread, was 0.7-1.2 ms of the audit's serial start on 16 cores
// (3,719 paths, most of each compare a shared prefix); each thread now sorts its own as it ends.
FileList MergeByPath(const std::vector<FileList*>& sorted) {
  // The lists whose next path is the smallest on top: a compare per level of the heap per path.
  std::vector<size_t> at(sorted.size(), 0);
  auto later = [&](size_t a, size_t b) { return sorted[b]->files[at[b]] < sorted[a]->files[at[a]]; };
  std::priority_queue<size_t, std::vector<size_t>, decltype(later)> next(later);
  FileList out;
  for (size_t k = 0; k < sorted.size(); ++k) {
    if (!sorted[k]->files.empty()) next.push(k);
    std::move(sorted[k]->warnings.begin(), sorted[k]->warnings.end(), std::back_inserter(out.warnings));
  }
  while (!next.empty()) {
    const size_t k = next.top();
    next.pop();
    out.files.push_back(std::move(sorted[k]->files[at[k]]));
    out.sizes.push_back(sorted[k]->sizes[at[k]]);
    if (++at[k] < sorted[k]->files.size()) next.push(k);
  }
  return out;
}

// Every folder under the roots is listed on all cores, whichever root it is under: a GPU
// environment's 68,849 files took 200 ms to list on one thread (libstdc++'s iterator builds a
// path per entry), and FlashInfer + CUTLASS's three roots, one after the other, were 16 ms of
// an audit's serial start. The files of each root are sorted (SortByPath, MergeByPath), so the
// order the threads list in does not show; warnings are sorted too.
std::vector<FileList> Walk(const std::vector<fs::path>& roots, const WalkOptions& options) {
  std::vector<Folder> start;
  for (size_t r = 0; r < roots.size(); ++r) start.push_back(Folder{roots[r].native(), r});
  FolderQueue queue(std::move(start));
  const int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::vector<std::vector<FileList>> parts(threads, std::vector<FileList>(roots.size()));
  ParallelFor(threads, threads, [&](size_t t) {
    std::vector<Folder> found;
    while (std::optional<Folder> folder = queue.Take()) {
      List(*folder, roots, options, parts[t], found);
      queue.Done(found);
    }
    for (FileList& part : parts[t]) SortByPath(part);  // beside the other threads, not after them
  });
  std::vector<FileList> walked(roots.size());
  for (size_t r = 0; r < roots.size(); ++r) {
    std::vector<FileList*> sorted;
    for (std::vector<FileList>& part : parts) sorted.push_back(&part[r]);
    walked[r] = MergeByPath(sorted);
  }
  for (FileList& list : walked) {
    std::sort(list.warnings.begin(), list.warnings.end(), [](const Error& a, const Error& b) {
      return std::tie(a.where.file, a.message) < std::tie(b.where.file, b.message);
    });
  }
  return walked;
}

}  // namespace

Result<FileList> CollectFiles(const std::vector<std::string>& paths, const WalkOptions& options) {
  std::vector<fs::path> roots;  // the directories, walked together
  std::vector<bool> is_root(paths.size());
  for (size_t k = 0; k < paths.size(); ++k) {
    std::error_code ec;
    fs::file_status status = fs::status(paths[k], ec);
    if (ec || !fs::exists(status)) return Error{"no such file or directory", Location{paths[k]}};
    if (fs::is_directory(status)) roots.emplace_back(paths[k]), is_root[k] = true;
  }
  std::vector<FileList> walked = Walk(roots, options);
  FileList out;
  size_t root = 0;
  for (size_t k = 0; k < paths.size(); ++k) {
    const std::string& p = paths[k];
    std::error_code ec;
    if (is_root[k]) {
      FileList& list = walked[root++];
      std::move(list.files.begin(), list.files.end(), std::back_inserter(out.files));
      out.sizes.insert(out.sizes.end(), list.sizes.begin(), list.sizes.end());
      std::move(list.warnings.begin(), list.warnings.end(), std::back_inserter(out.warnings));
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
