#include "hazard/features.h"

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "util/data_dir.h"
#include "util/input_file.h"
#include "util/yaml_reader.h"

namespace archpatch::hazard {
namespace {

Result<std::vector<std::string>> StringList(const YamlReader& r, const YAML::Node& node, const std::string& key) {
  if (!node.IsSequence()) return r.ErrorAt(node, fmt::format("'{}' must be a list of strings", key));
  std::vector<std::string> out;
  for (const YAML::Node& item : node) {
    if (!item.IsScalar()) return r.ErrorAt(item, fmt::format("'{}' must be a list of strings", key));
    out.push_back(item.Scalar());
  }
  return out;
}

// Whether the spec names at least one arch of the table, and is well formed.
bool ValidSpec(std::string_view spec) {
  for (const arch::Arch& a : arch::AllArches()) {
    if (ArchSpecMatches(spec, a)) return true;
  }
  return false;
}

// The glob's literal characters: "SM90_TMA_LOAD*" is more specific than "SM90_TMA_*".
size_t Specificity(std::string_view glob) {
  size_t n = 0;
  for (char c : glob) n += c != '*' && c != '?';
  return n;
}

// Of the features whose globs match, the one the fewest arches have (the one a target is most
// likely to lack: "mma.sync...kind::mxf8f6f4.block_scale..." is block-scaled MMA before it is FP8
// MMA); on a tie the more specific glob ("cp.async.bulk.tensor.*" over "cp.async.bulk.*").
// `index` holds the globs that can match `text` in table order (FeatureTable::IndexGlobs).
const Feature* BestMatch(const std::vector<Feature>& features, const FeatureTable::GlobIndex& index,
                         std::string_view text, std::vector<std::string> Feature::* globs) {
  const Feature* best = nullptr;
  size_t best_arches = 0, best_score = 0;
  for (const FeatureTable::GlobRef& ref : index[text.empty() ? 256 : static_cast<unsigned char>(text[0])]) {
    const Feature& f = features[ref.feature];
    const std::string& g = (f.*globs)[ref.glob];
    if (!GlobMatch(g, text)) continue;
    const size_t arches = f.arch_names.empty() ? f.ArchNames().size() : f.arch_names.size();
    const size_t score = Specificity(g);
    if (!best || arches < best_arches || (arches == best_arches && score > best_score)) {
      best = &f;
      best_arches = arches;
      best_score = score;
    }
  }
  return best;
}

// The slots of GlobIndex a glob belongs in: its first byte's, or every one when it starts with a
// wildcard (or is empty: it matches the empty text only).
void AddToIndex(FeatureTable::GlobIndex& index, const std::string& glob, FeatureTable::GlobRef ref) {
  if (!glob.empty() && glob[0] != '*' && glob[0] != '?') {
    index[static_cast<unsigned char>(glob[0])].push_back(ref);
    return;
  }
  for (std::vector<FeatureTable::GlobRef>& slot : index) slot.push_back(ref);
}

Result<Feature> ParseFeature(const YamlReader& r, const YAML::Node& node) {
  static const std::set<std::string> kKeys = {"id", "what", "ptx", "names", "arches", "source"};
  if (!node.IsMap()) return r.ErrorAt(node, "each feature must be a mapping");
  Feature f;
  f.line = node.Mark().line + 1;
  for (const auto& kv : node) {
    Result<std::string> key_text = r.Key(kv.first);
    if (!key_text) return key_text.error();
    const std::string& key = *key_text;
    if (!kKeys.count(key)) return r.ErrorAt(kv.first, fmt::format("unknown key '{}' in a feature", key));
    if (key == "id" || key == "what" || key == "source") {
      if (!kv.second.IsScalar()) return r.ErrorAt(kv.second, fmt::format("'{}' must be a string", key));
      (key == "id" ? f.id : key == "what" ? f.what : f.source) = kv.second.Scalar();
      continue;
    }
    Result<std::vector<std::string>> list = StringList(r, kv.second, key);
    if (!list) return list.error();
    (key == "ptx" ? f.ptx : key == "names" ? f.names : f.arches) = std::move(*list);
  }
  if (f.id.empty()) return r.ErrorAt(node, "a feature needs an 'id'");
  if (f.source.empty()) return r.ErrorAt(node, fmt::format("feature '{}' has no 'source'", f.id));
  if (f.arches.empty()) return r.ErrorAt(node, fmt::format("feature '{}' has no 'arches'", f.id));
  if (f.ptx.empty() && f.names.empty()) {
    return r.ErrorAt(node, fmt::format("feature '{}' needs 'ptx' or 'names' to be found by", f.id));
  }
  for (const std::string& spec : f.arches) {
    if (!ValidSpec(spec)) {
      return r.ErrorAt(node["arches"], fmt::format("feature '{}': '{}' names no arch of the table "
                                                   "(write sm_90a, sm_100f or sm_90+)",
                                                   f.id, spec));
    }
  }
  return f;
}

Status ParsePortable(const YamlReader& r, const YAML::Node& node, FeatureTable& table) {
  if (!node.IsMap()) return r.ErrorAt(node, "'portable' must be a mapping with 'names' and 'source'");
  for (const auto& kv : node) {
    Result<std::string> key = r.Key(kv.first);
    if (!key) return key.error();
    if (*key == "source" && kv.second.IsScalar()) {
      table.portable_source = kv.second.Scalar();
    } else if (*key == "names") {
      Result<std::vector<std::string>> list = StringList(r, kv.second, *key);
      if (!list) return list.error();
      table.portable = std::move(*list);
    } else {
      return r.ErrorAt(kv.first, fmt::format("unknown key '{}' in 'portable'", *key));
    }
  }
  if (table.portable_source.empty()) return r.ErrorAt(node, "'portable' has no 'source'");
  return Ok{};
}

}  // namespace

bool GlobMatch(std::string_view pattern, std::string_view text) {
  size_t p = 0, t = 0, star = std::string_view::npos, mark = 0;
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
      ++p, ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

bool ArchSpecMatches(std::string_view spec, const arch::Arch& a) {
  if (spec.size() < 4 || spec.substr(0, 3) != "sm_") return false;
  std::string_view rest = spec.substr(3);
  char suffix = rest.back();
  if (suffix == '+' || suffix == 'a' || suffix == 'f') rest.remove_suffix(1);
  int number = 0;
  for (char c : rest) {
    if (c < '0' || c > '9') return false;
    number = number * 10 + (c - '0');
  }
  if (rest.empty()) return false;
  switch (suffix) {
    case '+': return a.number() >= number;
    case 'a': return a.number() == number && a.variant == arch::Variant::kArchSpecific;
    case 'f': return a.major == number / 10 && a.number() >= number && a.variant != arch::Variant::kPlain;
    default: return false;  // a plain "sm_90" would read as "exactly sm_90"; ask for sm_90+
  }
}

bool Feature::AvailableOn(const arch::Arch& a) const {
  for (const std::string& spec : arches) {
    if (ArchSpecMatches(spec, a)) return true;
  }
  return false;
}

std::vector<std::string> Feature::ArchNames() const {
  if (!arch_names.empty()) return arch_names;  // indexed (a feature has at least one arch)
  std::vector<std::string> out;
  for (const arch::Arch& a : arch::AllArches()) {
    if (AvailableOn(a)) out.push_back(a.name());
  }
  return out;
}

void FeatureTable::IndexGlobs() {
  name_globs = {}, ptx_globs = {};
  portable_sorted = portable;
  std::sort(portable_sorted.begin(), portable_sorted.end());
  for (Feature& f : features) {
    f.arch_names.clear();
    f.arch_names = f.ArchNames();
  }
  for (size_t f = 0; f < features.size(); ++f) {
    for (size_t g = 0; g < features[f].names.size(); ++g) AddToIndex(name_globs, features[f].names[g], {f, g});
    for (size_t g = 0; g < features[f].ptx.size(); ++g) AddToIndex(ptx_globs, features[f].ptx[g], {f, g});
  }
}

const Feature* FeatureTable::MatchPtx(std::string_view word) const {
  return BestMatch(features, ptx_globs, word, &Feature::ptx);
}

const Feature* FeatureTable::MatchName(std::string_view identifier) const {
  return BestMatch(features, name_globs, identifier, &Feature::names);
}

bool FeatureTable::IsPortable(std::string_view identifier) const {
  // Asked for every call of every gated block: a search, not a walk over the list (which a
  // table built by hand, not indexed, still gets).
  if (portable_sorted.size() == portable.size()) {
    return std::binary_search(portable_sorted.begin(), portable_sorted.end(), identifier, std::less<>());
  }
  for (const std::string& n : portable) {
    if (n == identifier) return true;
  }
  return false;
}

Result<FeatureTable> ParseFeatures(std::string_view yaml, const std::string& path) {
  const YamlReader r(path);
  Result<YAML::Node> loaded = r.LoadOne(yaml);
  if (!loaded) return loaded.error();
  const YAML::Node& root = *loaded;
  if (!root.IsMap()) return Error{"the features table must be a mapping with 'features'", {path, 1, 1}};
  FeatureTable table;
  for (const auto& kv : root) {
    Result<std::string> key_text = r.Key(kv.first);
    if (!key_text) return key_text.error();
    const std::string& key = *key_text;
    if (key == "features") {
      if (!kv.second.IsSequence()) return r.ErrorAt(kv.second, "'features' must be a list");
      for (const YAML::Node& node : kv.second) {
        Result<Feature> f = ParseFeature(r, node);
        if (!f) return f.error();
        table.features.push_back(std::move(*f));
      }
    } else if (key == "portable") {
      Status s = ParsePortable(r, kv.second, table);
      if (!s) return s.error();
    } else {
      return r.ErrorAt(kv.first, fmt::format("unknown key '{}' (expected 'features' or 'portable')", key));
    }
  }
  if (table.features.empty()) return Error{"the features table lists no feature", {path, 1, 1}};
  table.IndexGlobs();
  return table;
}

Result<FeatureTable> LoadFeatures(const std::string& path) {
  Result<std::string> text = ReadInputFile(path, kMaxTableBytes);
  if (!text) return text.error();
  return ParseFeatures(*text, path);
}

const FeatureTable& DefaultFeatures() {
  static const FeatureTable table = [] {
    const Result<DataDir>& data = FindDataDir();
    if (!data) throw Fatal(data.error().message);
    Result<FeatureTable> t = LoadFeatures(data->features().string());
    if (!t) throw Fatal(t.error().str());
    return std::move(*t);
  }();
  return table;
}

}  // namespace archpatch::hazard
