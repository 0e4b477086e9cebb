// Strict reading of the YAML files archpatch takes (rules, the known-unsafe list, the features
// and caches tables): positions from yaml-cpp marks, typed reads that say what was expected, and
// key checks with "did you mean". One owner because yaml-cpp's own conversions throw on a node of
// another type (`as<std::string>()` on a map key), which a hostile file must never reach.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "util/result.h"

namespace archpatch {

// Reads one YAML document's nodes and reports problems at their position in `file`.
class YamlReader {
 public:
  explicit YamlReader(std::string file) : file_(std::move(file)) {}

  // The one document of `text`. A parse error, or a second document ('---' and more after it,
  // which yaml-cpp's Load would drop silently), is an error at its place; `hint` follows the
  // second-document message in parentheses ("put each rule in its own file").
  Result<YAML::Node> LoadOne(std::string_view text, std::string_view hint = "") const;

  Location At(const YAML::Node& node) const;
  // A mapping key as text; a key that is a list or a map ("? [a]: b", "{a: 1}: b") is an error.
  Result<std::string> Key(const YAML::Node& key) const;
  // A scalar node as text; `what` names it in the message ("'used_by' entries").
  Result<std::string> Scalar(const YAML::Node& node, std::string_view what) const;
  Error ErrorAt(const YAML::Node& node, std::string message) const;

  // The map's keys must all be in `allowed` (and appear once); `required` ones must be present.
  // `what` names the map in messages ("rule", "edit", "cuda-gate").
  Status CheckKeys(const YAML::Node& map, std::string_view what, const std::vector<std::string_view>& allowed,
                   const std::vector<std::string_view>& required) const;

  // map[key] as a string scalar (absent: nullopt). Sequences and maps are type errors.
  Result<std::optional<std::string>> String(const YAML::Node& map, const char* key) const;
  // map[key] as a list of string scalars (absent: nullopt).
  Result<std::optional<std::vector<std::string>>> StringList(const YAML::Node& map, const char* key) const;
  // map[key] as a whole number (absent: nullopt).
  Result<std::optional<long>> Integer(const YAML::Node& map, const char* key) const;

  // The node of `key` in `map`, for positions (the value's mark).
  YAML::Node Value(const YAML::Node& map, const char* key) const { return map[key]; }
  const std::string& file() const { return file_; }

 private:
  std::string file_;
};

// The closest candidate within a small edit distance, or "".
std::string ClosestName(std::string_view name, const std::vector<std::string_view>& candidates);

// "scalar", "list", "map", "null": for "expected a list, found a map" messages.
std::string_view NodeTypeName(const YAML::Node& node);

}  // namespace archpatch
