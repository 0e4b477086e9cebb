#include "util/yaml_reader.h"

#include <algorithm>
#include <cctype>
#include <set>

#include <fmt/format.h>

#include "util/edit_distance.h"
#include "util/yaml_text.h"

namespace archpatch {
namespace {

// "python_gate" and "Python-Gate" are near misses of "python-gate" whatever their distance.
std::string Fold(std::string_view s) {
  std::string out;
  for (char c : s) out += c == '_' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

std::string ClosestName(std::string_view name, const std::vector<std::string_view>& candidates) {
  std::string best;
  size_t best_distance = std::max<size_t>(3, name.size() / 3);
  for (std::string_view c : candidates) {
    // A prefix ("drop" for "drop-bound") is a near miss too.
    const bool prefix = name.size() >= 3 && Fold(c).starts_with(Fold(name));
    size_t d = Fold(name) == Fold(c) ? 0 : prefix ? 1 : EditDistance(name, c);
    if (d < best_distance) best = std::string(c), best_distance = d;
  }
  return best;
}

std::string_view NodeTypeName(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Scalar: return "a scalar";
    case YAML::NodeType::Sequence: return "a list";
    case YAML::NodeType::Map: return "a map";
    default: return "nothing";
  }
}

Result<YAML::Node> YamlReader::LoadOne(std::string_view text, std::string_view hint) const {
  // Never YAML::LoadAll: it loops forever on a stray ',' (", a"); the second document is found
  // on the text instead, and Load reads the first.
  if (std::optional<int> line = SecondYamlDocumentLine(text)) {
    std::string message = "a second YAML document; a file holds one";
    if (!hint.empty()) message += fmt::format(" ({})", hint);
    return Error{std::move(message), Location{file_, *line, 1}};
  }
  try {
    return YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    return Error{e.msg, Location{file_, e.mark.line + 1, e.mark.column + 1}};
  }
}

Location YamlReader::At(const YAML::Node& node) const {
  const YAML::Mark mark = node.Mark();
  if (mark.is_null()) return Location{file_, 0, 0};
  return Location{file_, mark.line + 1, mark.column + 1};
}

Result<std::string> YamlReader::Key(const YAML::Node& key) const {
  if (!key.IsScalar()) return ErrorAt(key, fmt::format("a key must be a string, found {}", NodeTypeName(key)));
  return key.Scalar();
}

Result<std::string> YamlReader::Scalar(const YAML::Node& node, std::string_view what) const {
  if (!node.IsScalar()) return ErrorAt(node, fmt::format("{} must be a string, found {}", what, NodeTypeName(node)));
  return node.Scalar();
}

Error YamlReader::ErrorAt(const YAML::Node& node, std::string message) const {
  return Error{std::move(message), At(node)};
}

Status YamlReader::CheckKeys(const YAML::Node& map, std::string_view what, const std::vector<std::string_view>& allowed,
                             const std::vector<std::string_view>& required) const {
  if (!map.IsMap()) {
    return ErrorAt(map, fmt::format("{} must be a map of keys, found {}", what, NodeTypeName(map)));
  }
  std::set<std::string> seen;
  for (const auto& item : map) {
    Result<std::string> key_text = Key(item.first);
    if (!key_text) return key_text.error();
    const std::string& key = *key_text;
    if (!seen.insert(key).second) {
      return ErrorAt(item.first, fmt::format("duplicate key '{}' in {}", key, what));
    }
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
    const std::string guess = ClosestName(key, allowed);
    return ErrorAt(item.first,
                   guess.empty()
                       ? fmt::format("unknown key '{}' in {} (known: {})", key, what, fmt::join(allowed, ", "))
                       : fmt::format("unknown key '{}' in {}, did you mean '{}'?", key, what, guess));
  }
  for (std::string_view key : required) {
    if (!seen.count(std::string(key))) {
      return ErrorAt(map, fmt::format("{} is missing the required key '{}'", what, key));
    }
  }
  return Ok{};
}

Result<std::optional<std::string>> YamlReader::String(const YAML::Node& map, const char* key) const {
  const YAML::Node node = map[key];
  if (!node) return std::optional<std::string>();
  if (!node.IsScalar()) {
    return ErrorAt(node, fmt::format("'{}' must be a string, found {}", key, NodeTypeName(node)));
  }
  return std::optional<std::string>(node.Scalar());
}

Result<std::optional<std::vector<std::string>>> YamlReader::StringList(const YAML::Node& map, const char* key) const {
  const YAML::Node node = map[key];
  if (!node) return std::optional<std::vector<std::string>>();
  if (!node.IsSequence()) {
    return ErrorAt(node, fmt::format("'{}' must be a list ([a, b]), found {}", key, NodeTypeName(node)));
  }
  std::vector<std::string> items;
  for (const YAML::Node& item : node) {
    if (!item.IsScalar()) {
      return ErrorAt(item, fmt::format("'{}' entries must be strings, found {}", key, NodeTypeName(item)));
    }
    items.push_back(item.Scalar());
  }
  return std::optional<std::vector<std::string>>(std::move(items));
}

Result<std::optional<long>> YamlReader::Integer(const YAML::Node& map, const char* key) const {
  const YAML::Node node = map[key];
  if (!node) return std::optional<long>();
  const std::string text = node.IsScalar() ? node.Scalar() : "";
  const bool digits = !text.empty() && std::all_of(text.begin() + (text[0] == '-'), text.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c));
  }) && text != "-" && text.size() < 10;
  if (!digits) {
    return ErrorAt(node, fmt::format("'{}' must be a whole number, found {}", key,
                                     node.IsScalar() ? "'" + text + "'" : std::string(NodeTypeName(node))));
  }
  return std::optional<long>(std::stol(text));
}

}  // namespace archpatch
