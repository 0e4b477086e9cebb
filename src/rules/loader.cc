// Finding rule files: by path, or by id in the rule directories (docs/rules.md, "Where rules are
// looked up").
#include "rules/loader.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <thread>

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <yaml-cpp/yaml.h>

#include "util/data_dir.h"
#include "util/parallel.h"
#include "util/yaml_reader.h"
#include "util/input_file.h"

namespace archpatch::rules {
namespace fs = std::filesystem;
namespace {

// YAML files in a rules folder that are not rules: the cache kinds, the feature table and the
// known-unsafe list.
const std::set<std::string> kNotRules = {"caches.yaml", "features.yaml", "known-unsafe.yaml"};

void AddIfFolder(std::vector<fs::path>& dirs, const fs::path& dir) {
  std::error_code ec;
  if (dir.empty() || !fs::is_directory(dir, ec)) return;
  fs::path canonical = fs::canonical(dir, ec);
  if (ec) return;
  if (std::find(dirs.begin(), dirs.end(), canonical) == dirs.end()) dirs.push_back(canonical);
}

bool LooksLikePath(std::string_view text) {
  return text.find('/') != std::string_view::npos || text.ends_with(".yaml") || text.ends_with(".yml");
}

// The caches rules in `dir` may name, from dir/caches.yaml (empty: the file is absent, no check).
std::vector<std::string> KnownCachesBeside(const fs::path& rule_file) {
  const fs::path caches = rule_file.parent_path() / "caches.yaml";
  std::error_code ec;
  if (!fs::exists(caches, ec)) return {};
  Result<std::vector<std::string>> names = CacheNames(caches);
  if (!names) {
    spdlog::warn("{}; cache names are not checked", names.error().str());
    return {};
  }
  return *names;
}

}  // namespace

Result<Rule> LoadRuleFile(const fs::path& path) { return std::move(LoadRuleFiles({path}).front()); }

std::vector<Result<Rule>> LoadRuleFiles(const std::vector<fs::path>& paths) {
  std::map<fs::path, std::vector<std::string>> caches;  // by folder, read before the rules
  for (const fs::path& path : paths) {
    if (!caches.count(path.parent_path())) caches.emplace(path.parent_path(), KnownCachesBeside(path));
  }
  // One rule per thread: yaml-cpp takes about 2 M instructions for a 2 KB rule, and an audit of a
  // small tree waited for the shipped rules one after another.
  std::vector<std::optional<Result<Rule>>> parsed(paths.size());
  ParallelFor(paths.size(), static_cast<int>(std::max(1u, std::thread::hardware_concurrency())), [&](size_t i) {
    Result<std::string> text = ReadInputFile(paths[i], kMaxRuleBytes);
    parsed[i] = text ? ParseRule(*text, paths[i], caches.at(paths[i].parent_path())) : Result<Rule>(text.error());
  });
  std::vector<Result<Rule>> rules;
  rules.reserve(paths.size());
  for (std::optional<Result<Rule>>& rule : parsed) rules.push_back(std::move(*rule));
  return rules;
}

std::vector<fs::path> RuleDirectories() {
  std::vector<fs::path> dirs;
  if (const char* env = std::getenv("ARCHPATCH_RULES_DIR")) {
    std::string_view list = env;
    size_t start = 0;
    while (start <= list.size()) {
      size_t colon = list.find(':', start);
      if (colon == std::string_view::npos) colon = list.size();
      AddIfFolder(dirs, std::string(list.substr(start, colon - start)));
      start = colon + 1;
    }
  }
  if (const Result<DataDir>& data = FindDataDir()) AddIfFolder(dirs, data->rules());
  return dirs;
}

bool IsRuleFileName(const fs::path& path) {
  const std::string ext = path.extension().string();
  return (ext == ".yaml" || ext == ".yml") && !kNotRules.count(path.filename().string());
}

std::vector<fs::path> RuleFilesIn(const fs::path& dir) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, ec)) {
    if (IsRuleFileName(entry.path()) && entry.is_regular_file()) {
      files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end(), [](const fs::path& a, const fs::path& b) { return a.stem() < b.stem(); });
  return files;
}

std::vector<fs::path> AllRuleFiles(const std::vector<fs::path>& dirs) {
  std::map<std::string, fs::path> by_id;
  for (const fs::path& dir : dirs) {
    for (const fs::path& file : RuleFilesIn(dir)) by_id.emplace(file.stem().string(), file);
  }
  std::vector<fs::path> files;
  for (const auto& [id, file] : by_id) files.push_back(file);
  return files;
}

Result<Rule> LoadRule(std::string_view id_or_path) {
  if (LooksLikePath(id_or_path)) return LoadRuleFile(std::string(id_or_path));
  const std::vector<fs::path> dirs = RuleDirectories();
  std::vector<std::string> known;
  for (const fs::path& dir : dirs) {
    for (const fs::path& file : RuleFilesIn(dir)) {
      if (file.stem() == id_or_path) return LoadRuleFile(file);
      known.push_back(file.stem().string());
    }
  }
  std::vector<std::string_view> candidates(known.begin(), known.end());
  const std::string guess = ClosestName(id_or_path, candidates);
  if (dirs.empty()) return Error{fmt::format("no rule '{}': {}", id_or_path, FindDataDir().error().message), {}};
  std::vector<std::string> dir_names;
  for (const fs::path& d : dirs) dir_names.push_back(d.string());
  return Error{guess.empty() ? fmt::format("no rule '{}' in {}", id_or_path, fmt::join(dir_names, ", "))
                             : fmt::format("no rule '{}', did you mean '{}'?", id_or_path, guess),
               {}};
}

Result<std::vector<std::string>> CacheNames(const fs::path& caches_yaml) {
  Result<std::string> text = ReadInputFile(caches_yaml, kMaxRuleBytes);
  if (!text) return text.error();
  YamlReader reader(caches_yaml.string());
  Result<YAML::Node> loaded = reader.LoadOne(*text);
  if (!loaded) return loaded.error();
  const YAML::Node& root = *loaded;
  // The format belongs to src/store/caches.h: `caches:` and a list of kinds, each with a name.
  const YAML::Node list = root.IsMap() ? root["caches"] : YAML::Node();
  if (!list.IsSequence()) return reader.ErrorAt(root, "expected 'caches:' and a list of cache kinds");
  std::vector<std::string> names;
  for (const YAML::Node& kind : list) {
    if (kind.IsMap() && kind["name"] && kind["name"].IsScalar()) names.push_back(kind["name"].Scalar());
  }
  return names;
}

}  // namespace archpatch::rules
