// The strict rule schema: every key known, every type checked, every impossible combination
// refused, each with file:line:column from yaml-cpp's marks. docs/rules.md is the reference.
#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "env/environment.h"
#include "env/glob.h"
#include "env/safe_path.h"
#include "env/version.h"
#include "rules/loader.h"
#include "util/identifier.h"
#include "util/yaml_reader.h"

namespace archpatch::rules {
namespace {

const std::vector<std::string_view> kRuleKeys = {"id",       "summary", "notes",  "distribution",
                                                 "versions", "targets", "caches", "edits"};
const std::vector<std::string_view> kRuleRequired = {"id", "summary", "distribution", "targets", "edits"};
const std::vector<std::string_view> kEditKinds = {"python-gate", "cuda-gate", "replace"};
const std::vector<std::string_view> kEditKeys = {"file", "python-gate", "cuda-gate", "replace", "expect"};
const std::vector<std::string_view> kStrategies = {"drop-bound", "raise-bound", "or-target"};
const std::vector<std::string_view> kAddForms = {"major", "capability"};

// Documented limits (docs/rules.md): an id is a file name, a macro one C identifier. Checked by a
// linear scan, never a regex: std::regex recurses once per character and a 30 KB value
// overflowed the stack (issue 16, item 9).
constexpr size_t kMaxIdBytes = 128;
constexpr size_t kMaxMacroBytes = 256;

bool IsRuleId(std::string_view text) {
  auto lower_or_digit = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  auto tail = [&](char c) { return lower_or_digit(c) || c == '.' || c == '_' || c == '-'; };
  return !text.empty() && lower_or_digit(text[0]) && std::all_of(text.begin() + 1, text.end(), tail);
}

// "'a…z' (30000 bytes)" for values too long to print whole.
std::string Shown(std::string_view text) {
  if (text.size() <= 64) return std::string(text);
  return fmt::format("{}... ({} bytes)", text.substr(0, 32), text.size());
}

// A string value that must be present and not empty (the key itself is checked by CheckKeys).
Result<std::string> RequiredString(const YamlReader& r, const YAML::Node& map, const char* key) {
  Result<std::optional<std::string>> value = r.String(map, key);
  if (!value) return value.error();
  if (!*value || (*value)->empty()) return r.ErrorAt(r.Value(map, key), fmt::format("'{}' must not be empty", key));
  return **value;
}

Result<std::string> OptionalString(const YamlReader& r, const YAML::Node& map, const char* key) {
  Result<std::optional<std::string>> value = r.String(map, key);
  if (!value) return value.error();
  return value->value_or("");
}

// A value from a fixed set: "unknown strategy 'drop', did you mean 'drop-bound'?".
Result<std::string> Choice(const YamlReader& r, const YAML::Node& map, const char* key,
                           const std::vector<std::string_view>& choices, std::string_view fallback) {
  Result<std::string> value = OptionalString(r, map, key);
  if (!value) return value.error();
  if (!map[key]) return std::string(fallback);
  if (std::find(choices.begin(), choices.end(), *value) != choices.end()) return *value;
  const std::string guess = ClosestName(*value, choices);
  return r.ErrorAt(r.Value(map, key), fmt::format("unknown {} '{}'{} (one of: {})", key, *value,
                                                  guess.empty() ? "" : fmt::format(", did you mean '{}'?", guess),
                                                  fmt::join(choices, ", ")));
}

Result<EditAction> ParseCudaGate(const YamlReader& r, const YAML::Node& node) {
  if (Status keys = r.CheckKeys(node, "cuda-gate", {"macro", "scope", "strategy"}, {"macro", "strategy"}); !keys) {
    return keys.error();
  }
  CudaGate gate;
  Result<std::string> macro = RequiredString(r, node, "macro");
  if (!macro) return macro.error();
  if (macro->size() > kMaxMacroBytes) {
    return r.ErrorAt(node["macro"], fmt::format("'macro' is longer than {} bytes", kMaxMacroBytes));
  }
  if (!IsIdentifier(*macro)) {
    return r.ErrorAt(node["macro"], fmt::format("'macro' must be one macro name, found '{}'", Shown(*macro)));
  }
  gate.macro = *macro;
  Result<std::string> scope = OptionalString(r, node, "scope");
  if (!scope) return scope.error();
  gate.scope = *scope;
  Result<std::string> strategy = Choice(r, node, "strategy", kStrategies, "");
  if (!strategy) return strategy.error();
  gate.strategy = *cuda::ParseWidenStrategy(*strategy);  // Choice took one of kStrategies
  return EditAction(gate);
}

Result<EditAction> ParsePythonGate(const YamlReader& r, const YAML::Node& node) {
  if (Status keys = r.CheckKeys(node, "python-gate", {"scope", "name", "add"}, {}); !keys) {
    return keys.error();
  }
  PythonGate gate;
  Result<std::string> scope = OptionalString(r, node, "scope");
  if (!scope) return scope.error();
  Result<std::string> name = OptionalString(r, node, "name");
  if (!name) return name.error();
  if (scope->empty() && name->empty()) {
    return r.ErrorAt(node,
                     "python-gate needs 'scope' or 'name' (or both): an edit must not widen "
                     "every gate of a file by accident");
  }
  Result<std::string> add = Choice(r, node, "add", kAddForms, "major");
  if (!add) return add.error();
  gate.scope = *scope;
  gate.name = *name;
  gate.add = *add == "major" ? AddForm::kMajor : AddForm::kCapability;
  return EditAction(gate);
}

Result<EditAction> ParseReplace(const YamlReader& r, const YAML::Node& node) {
  if (Status keys = r.CheckKeys(node, "replace", {"scope", "old", "new"}, {"old", "new"}); !keys) {
    return keys.error();
  }
  Replace replace;
  Result<std::string> scope = OptionalString(r, node, "scope");
  if (!scope) return scope.error();
  Result<std::string> old_text = RequiredString(r, node, "old");
  if (!old_text) return old_text.error();
  Result<std::string> new_text = OptionalString(r, node, "new");
  if (!new_text) return new_text.error();
  if (*old_text == *new_text) return r.ErrorAt(node["new"], "'new' is the same as 'old': nothing would change");
  replace.scope = *scope;
  replace.old_text = *old_text;
  replace.new_text = *new_text;
  return EditAction(replace);
}

Result<Edit> ParseEdit(const YamlReader& r, const YAML::Node& node, size_t index) {
  const std::string what = fmt::format("edit {}", index + 1);
  if (Status keys = r.CheckKeys(node, what, kEditKeys, {"file"}); !keys) return keys.error();
  std::vector<std::string_view> kinds;
  for (std::string_view kind : kEditKinds) {
    if (node[std::string(kind)]) kinds.push_back(kind);
  }
  if (kinds.size() != 1) {
    return r.ErrorAt(node, kinds.empty() ? fmt::format("{} needs one of python-gate, cuda-gate, replace", what)
                                         : fmt::format("{} has both '{}' and '{}'; an edit makes exactly one "
                                                       "change (write two edits)",
                                                       what, kinds[0], kinds[1]));
  }
  Edit edit;
  edit.where = r.At(node);
  Result<std::string> file = RequiredString(r, node, "file");
  if (!file) return file.error();
  if (Status safe = env::CheckRelativePath(*file); !safe) return r.ErrorAt(node["file"], safe.error().message);
  if (file->size() > env::kMaxGlobPatternBytes) {
    return r.ErrorAt(node["file"], fmt::format("'file' is longer than {} bytes", env::kMaxGlobPatternBytes));
  }
  edit.file = *file;
  const YAML::Node body = node[std::string(kinds[0])];
  Result<EditAction> action = kinds[0] == "cuda-gate"     ? ParseCudaGate(r, body)
                              : kinds[0] == "python-gate" ? ParsePythonGate(r, body)
                                                          : ParseReplace(r, body);
  if (!action) return action.error();
  edit.action = std::move(*action);
  Result<std::optional<long>> expect = r.Integer(node, "expect");
  if (!expect) return expect.error();
  if (*expect && **expect < 0)
    return r.ErrorAt(node["expect"], fmt::format("'expect' must be 0 or more, found {}", **expect));
  if (*expect) edit.expect = static_cast<int>(**expect);
  return edit;
}

Status ParseTargets(const YamlReader& r, const YAML::Node& root, Rule& rule) {
  Result<std::optional<std::vector<std::string>>> targets = r.StringList(root, "targets");
  if (!targets) return targets.error();
  if ((*targets)->empty()) return r.ErrorAt(root["targets"], "'targets' must name at least one arch");
  for (size_t i = 0; i < (*targets)->size(); ++i) {
    Result<arch::Arch> a = arch::ParseArch((**targets)[i]);
    if (!a) return r.ErrorAt(root["targets"][i], a.error().message);
    rule.targets.push_back(*a);
    rule.target_names.push_back(a->name());
  }
  return Ok{};
}

Status ParseHeader(const YamlReader& r, const YAML::Node& root, const std::filesystem::path& file, Rule& rule) {
  Result<std::string> id = RequiredString(r, root, "id");
  if (!id) return id.error();
  if (id->size() > kMaxIdBytes) {
    return r.ErrorAt(root["id"], fmt::format("id '{}' is longer than {} bytes", Shown(*id), kMaxIdBytes));
  }
  if (!IsRuleId(*id)) {
    return r.ErrorAt(root["id"],
                     fmt::format("id '{}' must be lowercase letters, digits, '.', '_' and '-'", Shown(*id)));
  }
  const std::string stem = file.stem().string();
  if ((file.extension() == ".yaml" || file.extension() == ".yml") && stem != *id) {
    return r.ErrorAt(root["id"], fmt::format("id '{}' must equal the file name '{}'", *id, stem));
  }
  rule.id = *id;
  Result<std::string> summary = RequiredString(r, root, "summary");
  if (!summary) return summary.error();
  if (summary->find('\n') != std::string::npos) return r.ErrorAt(root["summary"], "'summary' must be one line");
  rule.summary = *summary;
  Result<std::string> notes = OptionalString(r, root, "notes");
  if (!notes) return notes.error();
  rule.notes = *notes;
  Result<std::string> distribution = RequiredString(r, root, "distribution");
  if (!distribution) return distribution.error();
  rule.distribution = env::NormalizeName(*distribution);
  Result<std::string> versions = OptionalString(r, root, "versions");
  if (!versions) return versions.error();
  if (Result<env::SpecifierSet> set = env::SpecifierSet::Parse(*versions); !set) {
    return r.ErrorAt(root["versions"], set.error().message);
  }
  rule.versions = *versions;
  return Ok{};
}

Status ParseCaches(const YamlReader& r, const YAML::Node& root, const std::vector<std::string>& known, Rule& rule) {
  Result<std::optional<std::vector<std::string>>> caches = r.StringList(root, "caches");
  if (!caches) return caches.error();
  if (!*caches) return Ok{};
  for (size_t i = 0; i < (*caches)->size(); ++i) {
    const std::string& name = (**caches)[i];
    if (!known.empty() && std::find(known.begin(), known.end(), name) == known.end()) {
      std::vector<std::string_view> candidates(known.begin(), known.end());
      const std::string guess = ClosestName(name, candidates);
      return r.ErrorAt(root["caches"][i], fmt::format("unknown cache '{}'{} (rules/caches.yaml declares: {})", name,
                                                      guess.empty() ? "" : fmt::format(", did you mean '{}'?", guess),
                                                      fmt::join(known, ", ")));
    }
    rule.caches.push_back(name);
  }
  return Ok{};
}

Result<Rule> ParseRoot(const YamlReader& r, const YAML::Node& root, const std::filesystem::path& file,
                       const std::vector<std::string>& known_caches) {
  if (Status keys = r.CheckKeys(root, "rule", kRuleKeys, kRuleRequired); !keys) return keys.error();
  Rule rule;
  rule.path = file;
  if (Status header = ParseHeader(r, root, file, rule); !header) return header.error();
  if (Status targets = ParseTargets(r, root, rule); !targets) return targets.error();
  if (Status caches = ParseCaches(r, root, known_caches, rule); !caches) return caches.error();
  const YAML::Node edits = root["edits"];
  if (!edits.IsSequence() || edits.size() == 0) {
    return r.ErrorAt(edits, fmt::format("'edits' must be a non-empty list, found {}",
                                        edits.IsSequence() ? "an empty list" : NodeTypeName(edits)));
  }
  for (size_t i = 0; i < edits.size(); ++i) {
    Result<Edit> edit = ParseEdit(r, edits[i], i);
    if (!edit) return edit.error();
    rule.edits.push_back(std::move(*edit));
  }
  return rule;
}

}  // namespace

Result<Rule> ParseRule(std::string_view yaml_text, const std::filesystem::path& file_name,
                       const std::vector<std::string>& known_caches) {
  YamlReader reader(file_name.string());
  Result<YAML::Node> loaded = reader.LoadOne(yaml_text, "put each rule in its own file");
  if (!loaded) return loaded.error();
  const YAML::Node& root = *loaded;
  if (!root.IsMap()) {
    return Error{fmt::format("a rule must be a map of keys (id, summary, ...), found {}", NodeTypeName(root)),
                 Location{file_name.string(), 1, 1}};
  }
  Result<Rule> rule = ParseRoot(reader, root, file_name, known_caches);
  if (rule) rule->text = yaml_text;
  return rule;
}

}  // namespace archpatch::rules
