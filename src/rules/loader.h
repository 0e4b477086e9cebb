// Loading rules: by id from the rule directories, or by path; strict schema (docs/rules.md).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "rules/rule.h"
#include "util/result.h"

namespace archpatch::rules {

// Parses one rule file's text. `file_name` is used for messages ("file:line:col: ...") and for the
// id == file-name check. `known_caches` (may be empty: not checked) lists cache kinds from
// rules/caches.yaml.
Result<Rule> ParseRule(std::string_view yaml_text, const std::filesystem::path& file_name,
                       const std::vector<std::string>& known_caches = {});

// Reads and parses a rule file; checks caches against rules/caches.yaml beside it when present.
Result<Rule> LoadRuleFile(const std::filesystem::path& path);
// LoadRuleFile of each of `paths`, in order, with each folder's caches.yaml read once (yaml-cpp
// took as long for the 2 KB caches.yaml as for a rule: reading it per rule was half the time of
// loading the shipped rules).
std::vector<Result<Rule>> LoadRuleFiles(const std::vector<std::filesystem::path>& paths);

// Where rules are looked up, in order: $ARCHPATCH_RULES_DIR (':'-separated: your own rules, first),
// then the rules/ of archpatch's data folder (FindDataDir: found from the binary's location). Only
// existing folders.
std::vector<std::filesystem::path> RuleDirectories();

// `id_or_path` ending in .yaml/.yml or containing '/' is a path; otherwise an id looked up as
// <dir>/<id>.yaml in RuleDirectories() (first hit wins). Unknown ids get "did you mean".
Result<Rule> LoadRule(std::string_view id_or_path);

// Every *.yaml rule file directly in `dir` (caches.yaml excluded), sorted by id.
std::vector<std::filesystem::path> RuleFilesIn(const std::filesystem::path& dir);

// The rule files of `dirs` (RuleDirectories() order), one per id: the first folder holding an id
// wins, as LoadRule decides. Sorted by id.
std::vector<std::filesystem::path> AllRuleFiles(const std::vector<std::filesystem::path>& dirs);

// Whether a file name in a rules folder names a rule: *.yaml / *.yml, but not caches.yaml (cache
// kinds), features.yaml (the hazard feature table) nor known-unsafe.yaml (plan/known_unsafe.h).
bool IsRuleFileName(const std::filesystem::path& path);

// Cache kind names declared in `caches_yaml` (top-level keys or `caches:` entries' names).
Result<std::vector<std::string>> CacheNames(const std::filesystem::path& caches_yaml);

}  // namespace archpatch::rules
