#include "store/caches.h"

#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <climits>

#include <cstdlib>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "store/caches_remove.h"
#include "util/input_file.h"
#include "util/identifier.h"
#include "util/yaml_reader.h"

namespace archpatch::store {
namespace {

constexpr int kMaxModuleDepth = 8;  // flashinfer: <root>/<version>/<arch>/cached_ops/<module>

Result<CacheKind> ParseKind(const YAML::Node& node, const YamlReader& r) {
  if (!node.IsMap()) return r.ErrorAt(node, "a cache kind must be a mapping");
  CacheKind kind;
  for (const auto& item : node) {
    Result<std::string> key_text = r.Key(item.first);
    if (!key_text) return key_text.error();
    const std::string& key = *key_text;
    const YAML::Node& value = item.second;
    if (key == "ninja") {
      if (!value.IsScalar() || (value.Scalar() != "true" && value.Scalar() != "false")) {
        return r.ErrorAt(value, "'ninja' must be true or false");
      }
      kind.ninja = value.Scalar() == "true";
    } else if (key == "used_by") {
      if (!value.IsSequence()) return r.ErrorAt(value, "'used_by' must be a list of distributions");
      for (const auto& d : value) {
        Result<std::string> dist = r.Scalar(d, "'used_by' entries");
        if (!dist) return dist.error();
        kind.used_by.push_back(*dist);
      }
    } else if (key == "name" || key == "description" || key == "root") {
      if (!value.IsScalar()) return r.ErrorAt(value, fmt::format("'{}' must be a string", key));
      (key == "name" ? kind.name : key == "root" ? kind.root : kind.description) = value.Scalar();
    } else {
      return r.ErrorAt(item.first,
                       fmt::format("unknown key '{}' (expected name, description, root, ninja, used_by)", key));
    }
  }
  if (kind.name.empty()) return r.ErrorAt(node, "a cache kind needs a 'name'");
  if (kind.root.empty()) return r.ErrorAt(node, fmt::format("cache '{}' needs a 'root'", kind.name));
  return kind;
}

bool Ancestor(const fs::path& a, const fs::path& b) {  // a is b or contains it
  auto ai = a.begin(), bi = b.begin();
  for (; ai != a.end(); ++ai, ++bi) {
    if (ai->empty()) continue;  // trailing separator
    if (bi == b.end() || *ai != *bi) return false;
  }
  return true;
}

std::optional<fs::path> RealPath(const fs::path& path) {
  char buffer[PATH_MAX];
  if (path.empty() || !realpath(path.c_str(), buffer)) return std::nullopt;
  return fs::path(buffer);
}

// $HOME and the account's home from the password database: neither may be emptied.
std::vector<fs::path> HomeFolders(const EnvLookup& env) {
  std::vector<fs::path> homes;
  if (std::optional<std::string> home = env("HOME")) homes.emplace_back(*home);
  if (const passwd* pw = getpwuid(getuid()); pw && pw->pw_dir && *pw->pw_dir) homes.emplace_back(pw->pw_dir);
  return homes;
}

bool IsForbidden(const FolderId& id, const EnvLookup& env) {
  for (const fs::path& home : HomeFolders(env)) {
    if (ForbiddenRoots(home).count(id)) return true;
  }
  return ForbiddenRoots({}).count(id) > 0;
}

std::string ReadOrEmpty(Disk& disk, const fs::path& path) {
  Result<std::string> bytes = disk.Read(path);
  return bytes ? *bytes : std::string();
}

void FindModules(Disk& disk, const fs::path& dir, int depth, std::vector<fs::path>& out) {
  if (disk.Stat(dir / "build.ninja").kind == FileKind::file) {
    out.push_back(dir);
    return;
  }
  if (depth == 0) return;
  Result<std::vector<std::string>> names = disk.List(dir);
  if (!names) return;
  for (const std::string& name : *names) {
    if (disk.Stat(dir / name).kind == FileKind::dir) FindModules(disk, dir / name, depth - 1, out);
  }
}

// The include folders a build.ninja passes with -I / -isystem.
std::vector<std::string> IncludeDirs(const std::string& build_ninja) {
  std::vector<std::string> dirs;
  std::istringstream words(build_ninja);
  std::string word;
  bool next_is_dir = false;
  while (words >> word) {
    if (next_is_dir) {
      dirs.push_back(word);
      next_is_dir = false;
    } else if (word == "-isystem" || word == "-I") {
      next_is_dir = true;
    } else if (word.starts_with("-I") || word.starts_with("-isystem")) {
      dirs.push_back(word.substr(word.starts_with("-I") ? 2 : 8));
    }
  }
  return dirs;
}

// Whether the module was built from one of `changed`: its path appears in build.ninja or a
// depfile; without any depfile (never built through ninja's deps log), a changed file under one
// of its include folders counts too.
bool ModuleUses(Disk& disk, const fs::path& module, const std::vector<fs::path>& changed) {
  std::string build = ReadOrEmpty(disk, module / "build.ninja");
  std::string deps;
  Result<std::vector<std::string>> names = disk.List(module);
  for (const std::string& name : names ? *names : std::vector<std::string>{}) {
    if (name == ".ninja_deps" || name.ends_with(".d")) deps += ReadOrEmpty(disk, module / name);
  }
  for (const fs::path& file : changed) {
    std::string path = file.lexically_normal().string();
    if (build.find(path) != std::string::npos || deps.find(path) != std::string::npos) return true;
    if (!deps.empty()) continue;
    for (const std::string& dir : IncludeDirs(build)) {
      if (Ancestor(fs::path(dir).lexically_normal(), file.lexically_normal())) return true;
    }
  }
  return false;
}

}  // namespace

Result<std::vector<CacheKind>> ParseCacheKinds(const std::string& yaml_text, const std::string& file) {
  const YamlReader r(file);
  Result<YAML::Node> loaded = r.LoadOne(yaml_text);
  if (!loaded) return loaded.error();
  const YAML::Node& doc = *loaded;
  if (!doc.IsMap() || !doc["caches"] || !doc["caches"].IsSequence()) {
    return Error{"expected a mapping with a 'caches' list", Location{file, 1, 1}};
  }
  for (const auto& item : doc) {
    Result<std::string> key = r.Key(item.first);
    if (!key) return key.error();
    if (*key != "caches") return r.ErrorAt(item.first, fmt::format("unknown key '{}'", *key));
  }
  std::vector<CacheKind> kinds;
  std::set<std::string> names;
  for (const YAML::Node& node : doc["caches"]) {
    Result<CacheKind> kind = ParseKind(node, r);
    if (!kind) return kind.error();
    if (!names.insert(kind->name).second) {
      return r.ErrorAt(node, fmt::format("cache '{}' is declared twice", kind->name));
    }
    kinds.push_back(std::move(*kind));
  }
  return kinds;
}

Result<std::vector<CacheKind>> LoadCacheKinds(const fs::path& yaml_file) {
  Result<std::string> text = ReadInputFile(yaml_file, kMaxRuleBytes);
  if (!text) return text.error();
  return ParseCacheKinds(*text, yaml_file.string());
}

const CacheKind* FindCacheKind(const std::vector<CacheKind>& kinds, const std::string& name) {
  for (const CacheKind& k : kinds) {
    if (k.name == name) return &k;
  }
  return nullptr;
}

EnvLookup ProcessEnv() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());
    if ((!value || !*value) && name == "USER") {
      // As Python's getpass.getuser(): the account name when $USER is unset (containers).
      if (const passwd* pw = getpwuid(getuid())) value = pw->pw_name;
    }
    if (!value || !*value) return std::nullopt;
    return std::string(value);
  };
}

Result<fs::path> ExpandRoot(const std::string& text, const EnvLookup& env) {
  std::string out;
  size_t i = 0;
  if (text.starts_with("~")) {
    std::optional<std::string> home = env("HOME");
    if (!home) return Error{fmt::format("cache root '{}' needs $HOME, which is not set", text), {}};
    out = *home;
    i = 1;
  }
  while (i < text.size()) {
    if (text[i] != '$') {
      out += text[i++];
      continue;
    }
    std::string name, fallback;
    bool has_fallback = false;
    if (i + 1 < text.size() && text[i + 1] == '{') {
      size_t depth = 1, j = i + 2;
      for (; j < text.size() && depth > 0; ++j) depth += text[j] == '{' ? 1 : text[j] == '}' ? -1 : 0;
      if (depth) return Error{fmt::format("cache root '{}': unclosed '${{'", text), {}};
      std::string inner = text.substr(i + 2, j - i - 3);
      size_t dash = inner.find(":-");
      name = inner.substr(0, dash);
      if (dash != std::string::npos) fallback = inner.substr(dash + 2), has_fallback = true;
      i = j;
    } else {
      const size_t j = i + 1 + IdentifierRunAt(text, i + 1);
      name = text.substr(i + 1, j - i - 1);
      i = j;
    }
    if (std::optional<std::string> value = env(name)) {
      out += *value;
    } else if (has_fallback) {
      Result<fs::path> expanded = ExpandRoot(fallback, env);
      if (!expanded) return expanded.error();
      out += expanded->string();
    } else {
      return Error{fmt::format("cache root '{}' needs ${}, which is not set", text, name), {}};
    }
  }
  return fs::path(out).lexically_normal();
}

Status CheckCacheRoot(const fs::path& root, const EnvLookup& env) {
  fs::path normal = root.lexically_normal();
  if (!normal.is_absolute()) return Error{fmt::format("cache root '{}' is not absolute", root.string()), {}};
  if (normal == normal.root_path()) return Error{"refusing to clear '/'", {}};
  const Error home_error{fmt::format("refusing to clear '{}': it is the home folder or contains it", root.string()),
                         {}};
  for (const fs::path& home : HomeFolders(env)) {
    // Text first (the home may not exist yet), then what both resolve to, then identity: a
    // symlinked $HOME or a bind mount is a second name for the same folder.
    if (Ancestor(normal, home.lexically_normal())) return home_error;
    if (std::optional<fs::path> real = RealPath(home); real && Ancestor(RealPath(normal).value_or(normal), *real)) {
      return home_error;
    }
  }
  struct stat st;
  if (stat(normal.c_str(), &st) == 0 && IsForbidden(FolderId{st.st_dev, st.st_ino}, env)) return home_error;
  return Ok{};
}

Result<ClearReport> ClearCache(Disk& disk, const CacheKind& kind, const fs::path& root,
                               const std::vector<fs::path>& changed, DryRun dry) {
  ClearReport report{kind.name, root, false, false, {}, 0, 0};
  Result<OpenCacheFolder> folder = OpenCacheFolder::Open(root);
  if (!folder) return folder.error();
  if (!folder->exists()) return report;
  // Checked again on the opened folder: what was checked by name is what gets emptied.
  if (IsForbidden(folder->id(), ProcessEnv())) {
    return Error{
        fmt::format("refusing to clear '{}': it is the home folder, '/', or contains the home folder", root.string()),
        {}};
  }
  report.exists = true;
  RemoveTally tally;
  if (kind.ninja && !changed.empty()) {
    std::vector<fs::path> modules;
    FindModules(disk, root, kMaxModuleDepth, modules);
    for (const fs::path& module : modules) {
      if (!ModuleUses(disk, module, changed)) continue;
      if (Status s = folder->RemoveSubfolder(module.lexically_relative(root), tally, dry); !s) return s.error();
      report.modules.push_back(module);
    }
  } else {
    report.whole = true;
    if (Status s = folder->RemoveContents(tally, dry); !s) return s.error();
  }
  report.files = tally.files;
  report.bytes = tally.bytes;
  return report;
}

ClearReport MeasureCache(Disk& disk, const CacheKind& kind, const fs::path& root) {
  Result<ClearReport> r = ClearCache(disk, kind, root, {}, DryRun::yes);
  return r ? *r : ClearReport{kind.name, root, false, false, {}, 0, 0};
}

Result<fs::path> ResolveCacheRoot(const CacheKind& kind, const EnvLookup& env) {
  Result<fs::path> root = ExpandRoot(kind.root, env);
  if (!root) return root.error();
  // The folders above the root are resolved (a ~/.cache kept on another disk is fine); the
  // root itself is never followed: emptying a symlink's target is how a home was deleted.
  fs::path resolved = *root;
  if (std::optional<fs::path> parent = RealPath(root->parent_path())) resolved = *parent / root->filename();
  struct stat st;
  if (lstat(resolved.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
    return Error{fmt::format("cache root '{}' is a symlink; archpatch never follows one (to clear that cache, "
                             "point its variable at the folder itself)",
                             root->string()),
                 {}};
  }
  if (Status ok = CheckCacheRoot(resolved, env); !ok) return ok.error();
  return resolved;
}

}  // namespace archpatch::store
