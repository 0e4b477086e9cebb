#include "env/safe_path.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

namespace archpatch::env {
namespace fs = std::filesystem;
namespace {

std::vector<std::string_view> SplitPath(std::string_view path) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (start <= path.size()) {
    size_t slash = path.find('/', start);
    if (slash == std::string_view::npos) slash = path.size();
    std::string_view part = path.substr(start, slash - start);
    if (!part.empty() && part != ".") parts.push_back(part);
    start = slash + 1;
  }
  return parts;
}

Result<std::string> RealPath(const fs::path& path) {
  char buffer[PATH_MAX];
  if (!realpath(path.c_str(), buffer)) {
    return Error{fmt::format("cannot resolve '{}': {}", path.string(), std::strerror(errno)), {}};
  }
  return std::string(buffer);
}

bool IsInside(const std::string& path, const std::string& root) {
  if (path == root) return true;
  const std::string prefix = root == "/" ? root : root + "/";
  return path.compare(0, prefix.size(), prefix) == 0;
}

}  // namespace

Status CheckRelativePath(std::string_view relative) {
  if (relative.empty()) return Error{"empty path", {}};
  if (relative.find('\0') != std::string_view::npos) return Error{"path contains a NUL byte", {}};
  if (relative.front() == '/' || relative.front() == '\\') {
    return Error{fmt::format("'{}' is absolute; paths must be relative to site-packages", relative), {}};
  }
  for (std::string_view part : SplitPath(relative)) {
    if (part == "..") {
      return Error{fmt::format("'{}' contains '..'; paths must stay inside site-packages", relative), {}};
    }
  }
  return Ok{};
}

Result<fs::path> ResolveInside(const fs::path& root, std::string_view relative) {
  if (Status safe = CheckRelativePath(relative); !safe) return safe.error();
  Result<std::string> real_root = RealPath(root);
  if (!real_root) return real_root.error();
  fs::path current = *real_root;
  const std::vector<std::string_view> parts = SplitPath(relative);
  for (size_t i = 0; i < parts.size(); ++i) {
    fs::path next = current / std::string(parts[i]);
    struct stat st;
    if (lstat(next.c_str(), &st) != 0) {
      // The rest does not exist yet: nothing on disk can lead it out of the root.
      for (size_t k = i + 1; k < parts.size(); ++k) next /= std::string(parts[k]);
      return next;
    }
    if (S_ISLNK(st.st_mode)) {
      Result<std::string> target = RealPath(next);
      if (!target) return target.error();
      if (!IsInside(*target, *real_root)) {
        return Error{fmt::format("'{}' is a symlink leading out of '{}' (to '{}')", relative,
                                 root.string(), *target), {}};
      }
      next = *target;
    }
    current = next;
  }
  return current;
}

}  // namespace archpatch::env
