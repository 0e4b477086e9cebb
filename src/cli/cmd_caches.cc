// archpatch caches list|clear [NAME]...: the JIT caches of rules/caches.yaml, where they are in
// this shell's environment, how big they are, and clearing them by hand.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "cli/options.h"
#include "cli/store_support.h"
#include "store/caches.h"
#include "report/json_text.h"

namespace archpatch::cli {
namespace {

using nlohmann::json;

std::vector<const store::CacheKind*> Selected(const std::vector<store::CacheKind>& kinds,
                                              const std::vector<std::string>& names) {
  std::vector<const store::CacheKind*> out;
  for (const std::string& name : names) {
    const store::CacheKind* k = store::FindCacheKind(kinds, name);
    if (!k) throw UsageError(fmt::format("unknown cache '{}' (see 'archpatch caches list')", name));
    out.push_back(k);
  }
  if (names.empty()) {
    for (const store::CacheKind& k : kinds) out.push_back(&k);
  }
  return out;
}

json ReportJson(const store::CacheKind& kind, const Result<std::filesystem::path>& root,
                const store::ClearReport* report) {
  json j = {{"name", kind.name}, {"description", kind.description}, {"ninja", kind.ninja}};
  if (!root) {
    j["error"] = root.error().str();
    return j;
  }
  j["root"] = root->string();
  j["exists"] = report && report->exists;
  j["files"] = report ? report->files : 0;
  j["bytes"] = report ? report->bytes : 0;
  return j;
}

}  // namespace

int RunCaches(const Context&, const std::vector<std::string>& args) {
  po::options_description desc("options");
  desc.add_options()("action", po::value<std::vector<std::string>>(), "list | clear, then cache names")(
      "dry-run,n", "clear: count what would be removed, remove nothing")("json", "print JSON on stdout");
  ParsedOptions parsed = ParseOptions("caches", desc, args, "action", -1);
  if (parsed.help || !parsed.vars.count("action")) {
    PrintCommandHelp("caches", "list|clear [NAME]... [--dry-run] [--json]", desc);
    return parsed.help ? kExitOk : kExitUsage;
  }
  std::vector<std::string> words = parsed.vars["action"].as<std::vector<std::string>>();
  std::string action = words.front();
  if (action != "list" && action != "clear") {
    throw UsageError(fmt::format("caches: unknown action '{}' (list or clear)", action));
  }
  bool clear = action == "clear";
  bool dry = parsed.vars.count("dry-run") > 0;
  std::vector<store::CacheKind> kinds = LoadCacheKindsOrWarn();
  if (kinds.empty()) throw UsageError("no caches.yaml found in the rule folders (set ARCHPATCH_RULES_DIR)");
  store::RealDisk disk;
  store::EnvLookup env = store::ProcessEnv();
  json out = json::array();
  bool failed = false;
  uint64_t total_files = 0;
  for (const store::CacheKind* kind : Selected(kinds, {words.begin() + 1, words.end()})) {
    Result<std::filesystem::path> root = store::ResolveCacheRoot(*kind, env);
    std::optional<store::ClearReport> report;
    if (root) {
      Result<store::ClearReport> r =
          clear ? store::ClearCache(disk, *kind, *root, {}, dry ? store::DryRun::yes : store::DryRun::no)
                : Result<store::ClearReport>(store::MeasureCache(disk, *kind, *root));
      if (r)
        report = *r;
      else
        root = r.error();
    }
    failed |= !root;
    if (report) total_files += report->files;
    out.push_back(ReportJson(*kind, root, report ? &*report : nullptr));
  }
  if (parsed.vars.count("json")) {
    fmt::print(
        "{}\n",
        report::DumpText(
            json{{"action", action}, {"dry_run", dry}, {"changed", clear && !dry && total_files > 0}, {"caches", out}},
            2));
  } else {
    for (const json& c : out) {
      if (c.contains("error")) {
        fmt::print("{:<17} {}\n", c["name"].get<std::string>(), c["error"].get<std::string>());
        continue;
      }
      std::string size = c["exists"].get<bool>() ? fmt::format("{} file(s), {}", c["files"].get<uint64_t>(),
                                                               HumanBytes(c["bytes"].get<uint64_t>()))
                                                 : "absent";
      fmt::print("{:<17} {:<44} {}{}\n", c["name"].get<std::string>(), c["root"].get<std::string>(),
                 clear ? (dry ? "would free " : "freed ") : "", size);
    }
  }
  if (failed && clear) return kExitRefused;
  if (clear) return total_files > 0 && !dry ? kExitOk : kExitFindings;
  return kExitOk;
}

}  // namespace archpatch::cli
