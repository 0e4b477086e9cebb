#include "plan/known_unsafe.h"

#include <algorithm>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "env/environment.h"
#include "plan/locate.h"
#include "plan/rule_coverage.h"
#include "util/yaml_reader.h"
#include "util/data_dir.h"
#include "util/input_file.h"

namespace archpatch::plan {
namespace {

const std::vector<std::string_view> kEntryKeys = {"id",      "distribution", "targets", "what",
                                                  "because", "reported",     "places"};
const std::vector<std::string_view> kEntryRequired = {"id", "targets", "what", "because", "places"};
const std::vector<std::string_view> kPlaceKeys = {"file", "scope", "text"};

Result<std::string> Text(const YamlReader& r, const YAML::Node& map, const char* key, bool required) {
  Result<std::optional<std::string>> value = r.String(map, key);
  if (!value) return value.error();
  if (required && (!*value || (*value)->empty())) {
    return r.ErrorAt(map[key] ? r.Value(map, key) : map, fmt::format("'{}' must not be empty", key));
  }
  return value->value_or("");
}

Result<UnsafePlace> ParsePlace(const YamlReader& r, const YAML::Node& node) {
  if (!node.IsMap())
    return r.ErrorAt(node, fmt::format("a place must be a map (file, scope, text), found {}", NodeTypeName(node)));
  if (Status keys = r.CheckKeys(node, "place", kPlaceKeys, {"file"}); !keys) return keys.error();
  UnsafePlace place;
  for (auto [key, out, required] :
       {std::tuple{"file", &place.file, true}, {"scope", &place.scope, false}, {"text", &place.text, false}}) {
    Result<std::string> value = Text(r, node, key, required);
    if (!value) return value.error();
    *out = std::move(*value);
  }
  return place;
}

Result<std::vector<arch::Arch>> ParseTargets(const YamlReader& r, const YAML::Node& entry) {
  Result<std::optional<std::vector<std::string>>> names = r.StringList(entry, "targets");
  if (!names) return names.error();
  if (!*names || (*names)->empty()) return r.ErrorAt(entry, "'targets' must list at least one arch");
  std::vector<arch::Arch> out;
  for (const std::string& name : **names) {
    Result<arch::Arch> a = arch::ParseArch(name);
    if (!a) return r.ErrorAt(r.Value(entry, "targets"), a.error().message);
    out.push_back(*a);
  }
  return out;
}

Result<KnownUnsafe> ParseEntry(const YamlReader& r, const YAML::Node& node) {
  if (!node.IsMap()) return r.ErrorAt(node, fmt::format("an entry must be a map, found {}", NodeTypeName(node)));
  if (Status keys = r.CheckKeys(node, "entry", kEntryKeys, kEntryRequired); !keys) return keys.error();
  KnownUnsafe entry;
  for (auto [key, out, required] : {std::tuple{"id", &entry.id, true},
                                    {"distribution", &entry.distribution, false},
                                    {"what", &entry.what, true},
                                    {"because", &entry.because, true},
                                    {"reported", &entry.reported, false}}) {
    Result<std::string> value = Text(r, node, key, required);
    if (!value) return value.error();
    *out = std::move(*value);
  }
  if (!entry.distribution.empty()) entry.distribution = env::NormalizeName(entry.distribution);
  Result<std::vector<arch::Arch>> targets = ParseTargets(r, node);
  if (!targets) return targets.error();
  entry.targets = std::move(*targets);
  const YAML::Node places = node["places"];
  if (!places.IsSequence() || places.size() == 0) return r.ErrorAt(places, "'places' must be a non-empty list");
  for (const YAML::Node& p : places) {
    Result<UnsafePlace> place = ParsePlace(r, p);
    if (!place) return place.error();
    entry.places.push_back(std::move(*place));
  }
  return entry;
}

bool SameChip(const arch::Arch& a, const arch::Arch& b) { return a.major == b.major && a.minor == b.minor; }

// Whether `place` covers `gate` once its file glob matched the gate's file.
bool CoversInFile(const UnsafePlace& place, const GateView& gate) {
  if (!place.scope.empty() && !ScopeInside(gate.scope, place.scope)) return false;
  return place.text.empty() || gate.text.find(place.text) != std::string_view::npos;
}

bool ForTarget(const KnownUnsafe& entry, const arch::Arch& target) {
  return std::any_of(entry.targets.begin(), entry.targets.end(),
                     [&](const arch::Arch& a) { return SameChip(a, target); });
}

// The places of the entries for the target whose file glob matches one file, in list order.
struct PlacesInFile {
  const KnownUnsafe* entry;
  std::vector<const UnsafePlace*> places;
};
std::vector<PlacesInFile> PlacesMatching(const std::vector<const KnownUnsafe*>& entries, std::string_view file,
                                         FileGlobMatcher& globs) {
  std::vector<PlacesInFile> out;
  for (const KnownUnsafe* entry : entries) {
    PlacesInFile in{entry, {}};
    for (const UnsafePlace& p : entry->places) {
      if (globs.Matches(p.file, file)) in.places.push_back(&p);
    }
    if (!in.places.empty()) out.push_back(std::move(in));
  }
  return out;
}

// The first entry one of whose places, matched to the gate's file, covers `gate`.
const KnownUnsafe* FirstCovering(const std::vector<PlacesInFile>& in_file, const GateView& gate) {
  for (const PlacesInFile& in : in_file) {
    if (std::any_of(in.places.begin(), in.places.end(), [&](const UnsafePlace* p) { return CoversInFile(*p, gate); }))
      return in.entry;
  }
  return nullptr;
}

}  // namespace

Result<std::vector<KnownUnsafe>> ParseKnownUnsafe(std::string_view text, const std::string& file) {
  YamlReader r(file);
  Result<YAML::Node> doc = r.LoadOne(text);
  if (!doc) return doc.error();
  if (!doc->IsMap()) return r.ErrorAt(*doc, "a known-unsafe file is a map with one key, 'entries'");
  if (Status keys = r.CheckKeys(*doc, "known-unsafe file", {"entries"}, {"entries"}); !keys) return keys.error();
  const YAML::Node entries = (*doc)["entries"];
  if (!entries.IsSequence()) return r.ErrorAt(entries, "'entries' must be a list");
  std::vector<KnownUnsafe> out;
  for (const YAML::Node& node : entries) {
    Result<KnownUnsafe> entry = ParseEntry(r, node);
    if (!entry) return entry.error();
    if (std::any_of(out.begin(), out.end(), [&](const KnownUnsafe& e) { return e.id == entry->id; })) {
      return r.ErrorAt(node["id"], fmt::format("duplicate id '{}'", entry->id));
    }
    out.push_back(std::move(*entry));
  }
  return out;
}

Result<std::vector<KnownUnsafe>> LoadKnownUnsafe(const std::filesystem::path& file) {
  Result<std::string> text = ReadInputFile(file, kMaxTableBytes);
  if (!text) return text.error();
  return ParseKnownUnsafe(*text, file.string());
}

const Result<std::vector<KnownUnsafe>>& ShippedKnownUnsafe() {
  static const Result<std::vector<KnownUnsafe>> list = []() -> Result<std::vector<KnownUnsafe>> {
    const Result<DataDir>& data = FindDataDir();
    if (!data) {
      // No data folder at all: a rule given by path still applies (as without features.yaml for
      // Python-only rules); say once that nothing could be checked against the list.
      spdlog::warn("{}; the known-unsafe list is not checked", data.error().message);
      return std::vector<KnownUnsafe>{};
    }
    std::error_code ec;
    if (!std::filesystem::exists(data->known_unsafe(), ec)) {
      spdlog::debug("no {}: the known-unsafe list is empty", data->known_unsafe().string());
      return std::vector<KnownUnsafe>{};
    }
    return LoadKnownUnsafe(data->known_unsafe());
  }();
  return list;
}

const KnownUnsafe* MatchKnownUnsafe(const std::vector<KnownUnsafe>& list, const GateView& gate,
                                    const arch::Arch& target, std::string_view distribution) {
  FileGlobMatcher globs;
  return MatchKnownUnsafe(list, gate, target, distribution, globs);
}

const KnownUnsafe* MatchKnownUnsafe(const std::vector<KnownUnsafe>& list, const GateView& gate,
                                    const arch::Arch& target, std::string_view distribution, FileGlobMatcher& globs) {
  std::vector<const KnownUnsafe*> entries;
  for (const KnownUnsafe& entry : list) {
    if (!distribution.empty() && !entry.distribution.empty() && entry.distribution != distribution) continue;
    if (ForTarget(entry, target)) entries.push_back(&entry);
  }
  return FirstCovering(PlacesMatching(entries, gate.file, globs), gate);
}

// MatchKnownUnsafe for each finding, the entries for the target chosen once and their file globs
// matched once per file (the findings come file by file): per finding and place, the glob's lookup
// of the path was 32 M instructions on FlashInfer + CUTLASS, on the one thread that ends after the
// grouping on 16 cores.
std::vector<const KnownUnsafe*> MatchEachFinding(const std::vector<Finding>& findings,
                                                 const std::vector<KnownUnsafe>& list, const arch::Arch& target) {
  std::vector<const KnownUnsafe*> entries(findings.size(), nullptr);
  std::vector<const KnownUnsafe*> for_target;
  for (const KnownUnsafe& entry : list) {
    if (ForTarget(entry, target)) for_target.push_back(&entry);
  }
  if (for_target.empty()) return entries;
  FileGlobMatcher globs;
  std::vector<PlacesInFile> here;
  for (size_t i = 0; i < findings.size(); ++i) {
    const Finding& f = findings[i];
    if (i == 0 || f.file != findings[i - 1].file) here = PlacesMatching(for_target, f.file, globs);
    entries[i] = FirstCovering(here, {f.file, f.scope, f.text});
  }
  return entries;
}

std::vector<const KnownUnsafe*> FindKnownUnsafe(const std::vector<gate::Group>& groups,
                                                const std::vector<const KnownUnsafe*>& per_finding) {
  std::vector<const KnownUnsafe*> entries(groups.size(), nullptr);
  for (size_t k = 0; k < groups.size(); ++k) {
    entries[k] = per_finding[groups[k].root];
    for (size_t i = 0; !entries[k] && i < groups[k].places.size(); ++i) entries[k] = per_finding[groups[k].places[i]];
  }
  return entries;
}

void ApplyKnownUnsafe(std::vector<gate::Group>& groups, const std::vector<const KnownUnsafe*>& entries) {
  for (size_t k = 0; k < groups.size() && k < entries.size(); ++k) {
    const KnownUnsafe* entry = entries[k];
    if (!entry) continue;
    gate::Group& g = groups[k];
    g.known_unsafe = gate::KnownUnsafeMark{entry->id, entry->what, entry->because, entry->reported};
    g.widen = gate::WidenSafety::kUnsafe;
    g.widen_reasons.insert(g.widen_reasons.begin(),
                           fmt::format("on the known-unsafe list ({}): {}", entry->id, entry->because));
  }
}

void MarkKnownUnsafe(std::vector<gate::Group>& groups, const std::vector<Finding>& findings,
                     const std::vector<KnownUnsafe>& list, const arch::Arch& target) {
  ApplyKnownUnsafe(groups, FindKnownUnsafe(groups, MatchEachFinding(findings, list, target)));
}

Result<std::vector<const KnownUnsafe*>> MatchShippedKnownUnsafe(const std::vector<Finding>& findings,
                                                                const arch::Arch& target) {
  const Result<std::vector<KnownUnsafe>>& list = ShippedKnownUnsafe();
  if (!list) return list.error();
  return MatchEachFinding(findings, *list, target);
}

std::string DoNotWiden(const KnownUnsafe& entry) {
  return fmt::format("do not widen: {}, because {}", entry.what, entry.because);
}

}  // namespace archpatch::plan
