// archpatch suggest: draft rules and their fixtures from the audit's widen-safe root causes
// (docs/suggest.md). Parses options, calls suggest::Suggest and suggest::WriteSuggestions, prints.
// The --json document is a contract: docs/suggest.md lists every field.
#include <algorithm>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "cli/options.h"
#include "cli/store_support.h"
#include "suggest/output.h"
#include "suggest/suggest.h"
#include "report/human.h"
#include "report/json_text.h"

namespace archpatch::cli {
namespace {
namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

constexpr const char* kSynopsis =
    "--arch ARCH [GROUP...] [--out DIR] [--allow-unknown] [--fast-paths] [--json] (--python EXE | --site-packages DIR "
    "| --root DIR)";
constexpr const char* kDefaultOut = "archpatch-suggest";

po::options_description SuggestOptionsDescription() {
  po::options_description desc("options");
  desc.add_options()("arch", po::value<std::string>(), "the arch to deploy on (sm_120, 12.0, 120a, ...)")(
      "out", po::value<std::string>()->default_value(kDefaultOut), "where the rules and their fixtures go")(
      "allow-unknown", "also draft root causes whose widen verdict is unknown (the notes say so)")(
      "fast-paths", "also draft fast paths, where the target runs a generic path (speed, not correctness)")(
      "json", "print one JSON document (docs/suggest.md)")("jobs,j", po::value<int>()->default_value(0),
                                                           "audit worker threads (default: one per core)")(
      "group", po::value<std::vector<std::string>>(), "root-cause ids as `archpatch audit` prints them (G1, ...)");
  AddEnvOptions(desc);
  return desc;
}

suggest::SuggestOptions ToOptions(const po::variables_map& vars) {
  if (!vars.count("arch")) throw UsageError("suggest: '--arch' is required (for example --arch sm_120)");
  Result<arch::Arch> target = arch::ParseArch(vars["arch"].as<std::string>());
  if (!target) throw UsageError(fmt::format("suggest: --arch: {}", target.error().message));
  suggest::SuggestOptions o;
  o.target = *target;
  if (vars.count("group")) o.groups = vars["group"].as<std::vector<std::string>>();
  o.allow_unknown = vars.count("allow-unknown") > 0;
  o.fast_paths = vars.count("fast-paths") > 0;
  o.jobs = vars["jobs"].as<int>();
  return o;
}

size_t Count(const std::vector<fs::path>& paths, const std::string& prefix) {
  size_t n = 0;
  for (const fs::path& p : paths) n += p.string().starts_with(prefix);
  return n;
}

// A reason no other root cause shares on the root cause's line; one that several share (a
// known-unsafe entry over a package's dispatchers: 28 of DeepGEMM's on sm_121) once, with their
// lines under it, where the first of them was refused.
void PrintRefusals(const std::vector<suggest::Refusal>& refused) {
  std::vector<std::pair<std::string_view, std::vector<const suggest::Refusal*>>> by_reason;
  for (const suggest::Refusal& r : refused) {
    auto same = std::find_if(by_reason.begin(), by_reason.end(), [&](const auto& b) { return b.first == r.reason; });
    if (same == by_reason.end()) same = by_reason.insert(by_reason.end(), {r.reason, {}});
    same->second.push_back(&r);
  }
  for (const auto& [reason, list] : by_reason) {
    if (list.size() == 1) {
      const suggest::Refusal& r = *list.front();
      fmt::print("refused {} {} '{}': {}\n", r.group, r.where, report::OneLine(r.text), reason);
      continue;
    }
    fmt::print("refused {} root causes: {}\n", list.size(), reason);
    for (const suggest::Refusal* r : list) fmt::print("  {} {} '{}'\n", r->group, r->where, report::OneLine(r->text));
  }
}

void PrintHuman(const suggest::Suggestions& s, const suggest::WriteReport& w, const fs::path& out,
                const suggest::SuggestOptions& o) {
  for (const suggest::SuggestedRule& r : s.rules) {
    const std::string yaml = (out / (r.id + ".yaml")).string();
    const size_t fresh = Count(w.written, yaml) + Count(w.written, (out / "tests" / r.id).string() + "/");
    fmt::print("{} {}: {} edit{} ({}), fixture {}/\n", fresh ? "wrote" : "unchanged", yaml, r.edits,
               r.edits == 1 ? "" : "s", fmt::join(r.groups, ", "), (out / "tests" / r.id).string());
  }
  PrintRefusals(s.refused);
  fmt::print("{} rule{} drafted for {} from {} root cause{}, {} refused\n", s.rules.size(),
             s.rules.size() == 1 ? "" : "s", o.target.name(), s.root_causes, s.root_causes == 1 ? "" : "s",
             s.refused.size());
  if (!s.rules.empty()) {
    fmt::print("next: archpatch rules test --dir {} && archpatch apply --rule {} --dry-run --verify ...\n",
               out.string(), (out / (s.rules.front().id + ".yaml")).string());
  }
}

Json Paths(const std::vector<fs::path>& paths) {
  Json out = Json::array();
  for (const fs::path& p : paths) out.push_back(p.string());
  return out;
}

void PrintJson(const suggest::Suggestions& s, const suggest::WriteReport& w, const fs::path& out,
               const suggest::SuggestOptions& o) {
  Json rules = Json::array();
  for (const suggest::SuggestedRule& r : s.rules) {
    Json files = Json::array();
    for (const suggest::FixtureFile& f : r.fixture) files.push_back(f.path);
    rules.push_back({{"id", r.id},
                     {"path", (out / (r.id + ".yaml")).string()},
                     {"fixture", (out / "tests" / r.id).string()},
                     {"distribution", r.distribution},
                     {"version", r.version},
                     {"groups", r.groups},
                     {"edits", r.edits},
                     {"fixture_files", files}});
  }
  Json refused = Json::array();
  for (const suggest::Refusal& r : s.refused) {
    refused.push_back({{"group", r.group}, {"where", r.where}, {"text", r.text}, {"reason", r.reason}});
  }
  Json doc = {
      {"arch", o.target.name()}, {"out", out.string()},         {"root_causes", s.root_causes},   {"rules", rules},
      {"refused", refused},      {"written", Paths(w.written)}, {"unchanged", Paths(w.unchanged)}};
  fmt::print("{}\n", report::DumpText(doc, 2));
}

}  // namespace

int RunSuggest(const Context&, const std::vector<std::string>& args) {
  po::options_description desc = SuggestOptionsDescription();
  ParsedOptions parsed = ParseOptions("suggest", desc, args, "group");
  if (parsed.help) {
    PrintCommandHelp("suggest", kSynopsis, desc);
    return kExitOk;
  }
  const suggest::SuggestOptions options = ToOptions(parsed.vars);
  const env::Environment env = DiscoverEnvironment(parsed.vars);
  const fs::path out = parsed.vars["out"].as<std::string>();
  Result<suggest::Suggestions> suggestions = suggest::Suggest(env, options);
  if (!suggestions) throw UsageError(fmt::format("suggest: {}", suggestions.error().str()));
  Result<suggest::WriteReport> written = suggest::WriteSuggestions(suggestions->rules, out);
  if (!written) throw Fatal(fmt::format("suggest: {}", written.error().str()));
  for (const std::string& conflict : written->conflicts) {
    fmt::print(stderr,
               "archpatch: error: refusing to overwrite: {} (nothing was written; remove it or choose another --out)\n",
               conflict);
  }
  if (!written->conflicts.empty()) return kExitRefused;
  if (parsed.vars.count("json")) {
    PrintJson(*suggestions, *written, out, options);
  } else {
    PrintHuman(*suggestions, *written, out, options);
  }
  if (!suggestions->rules.empty()) return kExitOk;
  return suggestions->root_causes == 0 ? kExitFindings : kExitRefused;
}

}  // namespace archpatch::cli
