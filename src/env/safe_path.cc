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

bool HasGlobCharacters(std::string_view part) {
  return part.find_first_of("*?[") != std::string_view::npos;
}

// Matches one character class at pattern[0] == '['; advances `pattern` past it.
bool MatchClass(std::string_view& pattern, char c) {
  size_t i = 1;
  bool negate = i < pattern.size() && (pattern[i] == '!' || pattern[i] == '^');
  if (negate) ++i;
  bool matched = false;
  const size_t first = i;
  for (; i < pattern.size() && (pattern[i] != ']' || i == first); ++i) {
    if (i + 2 < pattern.size() && pattern[i + 1] == '-' && pattern[i + 2] != ']') {
      matched |= pattern[i] <= c && c <= pattern[i + 2];
      i += 2;
    } else {
      matched |= pattern[i] == c;
    }
  }
  pattern.remove_prefix(std::min(i + 1, pattern.size()));
  return matched != negate;
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

bool GlobMatch(std::string_view pattern, std::string_view path) {
  while (!pattern.empty()) {
    if (pattern.substr(0, 2) == "**") {
      std::string_view rest = pattern.substr(2);
      // "**/" also matches no folder at all: "a/**/b" matches "a/b".
      if (rest.substr(0, 1) == "/" && GlobMatch(rest.substr(1), path)) return true;
      for (size_t i = 0; i <= path.size(); ++i) {
        if (GlobMatch(rest, path.substr(i))) return true;
      }
      return false;
    }
    if (pattern[0] == '*') {
      for (size_t i = 0; i <= path.size(); ++i) {
        if (GlobMatch(pattern.substr(1), path.substr(i))) return true;
        if (i < path.size() && path[i] == '/') break;
      }
      return false;
    }
    if (path.empty() || (pattern[0] != '[' && pattern[0] != '?' && pattern[0] != path[0])) {
      return false;
    }
    if (pattern[0] == '[') {
      if (path[0] == '/' || !MatchClass(pattern, path[0])) return false;
    } else {
      if (pattern[0] == '?' && path[0] == '/') return false;
      pattern.remove_prefix(1);
    }
    path.remove_prefix(1);
  }
  return path.empty();
}

Result<std::vector<std::string>> GlobInside(const fs::path& root, std::string_view pattern) {
  if (Status safe = CheckRelativePath(pattern); !safe) return safe.error();
  // Walk only below the pattern's literal folders.
  std::string prefix;
  for (std::string_view part : SplitPath(pattern)) {
    if (HasGlobCharacters(part)) break;
    prefix += (prefix.empty() ? "" : "/") + std::string(part);
  }
  std::string normalized;
  for (std::string_view part : SplitPath(pattern)) {
    normalized += (normalized.empty() ? "" : "/") + std::string(part);
  }
  std::vector<std::string> matches;
  if (prefix == normalized) {  // no glob characters: one file
    Result<fs::path> file = ResolveInside(root, normalized);
    if (!file) return file.error();
    if (fs::is_regular_file(*file)) matches.push_back(normalized);
    return matches;
  }
  Result<fs::path> start = ResolveInside(root, prefix.empty() ? "." : prefix);
  if (!start) return start.error();
  std::error_code ec;
  if (!fs::is_directory(*start, ec)) return matches;
  for (auto it = fs::recursive_directory_iterator(*start, ec); !ec && it != fs::end(it);
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (it->is_directory() && name == ".archpatch") {
      it.disable_recursion_pending();
      continue;
    }
    std::string relative = it->path().lexically_relative(*start).generic_string();
    if (!prefix.empty()) relative = prefix + "/" + relative;
    if (!GlobMatch(normalized, relative)) continue;
    Result<fs::path> file = ResolveInside(root, relative);
    if (!file) return file.error();
    if (fs::is_regular_file(*file)) matches.push_back(relative);
  }
  if (ec) return Error{fmt::format("cannot list '{}': {}", start->string(), ec.message()), {}};
  std::sort(matches.begin(), matches.end());
  return matches;
}

}  // namespace archpatch::env
