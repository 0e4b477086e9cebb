#include "env/safe_path.h"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
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

}  // namespace

bool IsStateDirName(std::string_view component) {
  if (component.size() != kStateDirName.size()) return false;
  for (size_t i = 0; i < component.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(component[i])) != kStateDirName[i]) return false;
  }
  return true;
}

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
    if (IsStateDirName(part)) {
      return Error{fmt::format("'{}' is inside archpatch's state folder '{}'; no rule, plan or state "
                               "entry may edit it",
                               relative, kStateDirName),
                   {}};
    }
  }
  return Ok{};
}

Result<fs::path> CheckInside(const fs::path& root, std::string_view relative, const LstatFunction& lstat) {
  if (Status safe = CheckRelativePath(relative); !safe) return safe.error();
  fs::path current = root;
  bool exists = true;
  for (std::string_view part : SplitPath(relative)) {
    current /= std::string(part);
    if (!exists) continue;  // below a missing folder nothing can be a symlink
    EntryKind kind = lstat(current);
    if (kind == EntryKind::missing) exists = false;
    if (kind == EntryKind::symlink) {
      return Error{fmt::format("'{}': '{}' is a symlink; archpatch never follows symlinks below '{}'", relative,
                               current.lexically_relative(root).generic_string(), root.string()),
                   {}};
    }
  }
  return current;
}

Result<fs::path> ResolveInside(const fs::path& root, std::string_view relative) {
  Result<std::string> real_root = RealPath(root);
  if (!real_root) return real_root.error();
  return CheckInside(*real_root, relative, [](const fs::path& p) {
    struct stat st;
    if (lstat(p.c_str(), &st) != 0) return EntryKind::missing;
    if (S_ISLNK(st.st_mode)) return EntryKind::symlink;
    if (S_ISDIR(st.st_mode)) return EntryKind::directory;
    return S_ISREG(st.st_mode) ? EntryKind::file : EntryKind::other;
  });
}

}  // namespace archpatch::env
