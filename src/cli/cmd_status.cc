// archpatch status: what is applied here, whether each file is still as archpatch left it, and
// whether a transaction was left half done. Reads only; never rolls anything back.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "cli/options.h"
#include "cli/store_support.h"
#include "env/digest.h"
#include "store/lock.h"
#include "store/transaction.h"

namespace archpatch::cli {
namespace {

using nlohmann::json;

// "patched" (as archpatch left it), "original" (reverted by hand), "modified", "missing".
std::string FileState(const store::StateDir& state, const std::string& path, const std::string& original,
                      const std::string& patched) {
  Result<std::string> bytes = env::ReadFileBytes(state.FilePath(path));
  if (!bytes) return "missing";
  std::string sha = env::Sha256Hex(*bytes);
  return sha == patched ? "patched" : sha == original ? "original" : "modified";
}

json HalfDone(store::StateDir& state, const store::Journal& j) {
  json files = json::array();
  for (const store::JournalFile& f : j.files) {
    files.push_back({{"path", f.path}, {"state", FileState(state, f.path, f.original_sha256, f.patched_sha256)}});
  }
  return {{"operation", j.operation}, {"transaction", j.transaction}, {"started_at", j.started_at},
          {"rules", j.rules},         {"files", files},
          {"problems", store::RecoveryProblems(state, j)}};
}

void PrintHuman(const json& status) {
  if (!status["half_done"].is_null()) {
    const json& h = status["half_done"];
    const auto problems = h["problems"].get<std::vector<std::string>>();
    fmt::print("HALF DONE: the {} of {} (transaction {}, started {}) did not finish; {}\n",
               h["operation"].get<std::string>(), fmt::join(h["rules"].get<std::vector<std::string>>(), ", "),
               h["transaction"].get<std::string>(), h["started_at"].get<std::string>(),
               problems.empty() ? "the next 'archpatch apply' or 'archpatch revert' rolls it back"
                                : fmt::format("it cannot be rolled back whole ({}). Way out: {}",
                                              fmt::join(problems, "; "), store::kRecoveryWayOut));
    for (const json& f : h["files"]) {
      fmt::print("  {:<9} {}\n", f["state"].get<std::string>(), f["path"].get<std::string>());
    }
  }
  if (status["entries"].empty()) fmt::print("no rules applied in {}\n", status["site_packages"].get<std::string>());
  for (const json& e : status["entries"]) {
    fmt::print("{}  {} {}  applied {} by archpatch {}{}\n", e["rule"].get<std::string>(),
               e["distribution"].get<std::string>(), e["version"].get<std::string>(),
               e["applied_at"].get<std::string>(), e["archpatch_version"].get<std::string>(),
               e["as_left"].get<bool>() ? "" : "  (CHANGED SINCE)");
    for (const json& f : e["files"]) {
      fmt::print("  {:<9} {}\n", f["state"].get<std::string>(), f["path"].get<std::string>());
    }
  }
}

}  // namespace

int RunStatus(const Context&, const std::vector<std::string>& args) {
  po::options_description desc("options");
  desc.add_options()("json", "print the status as JSON on stdout");
  AddEnvOptions(desc);
  ParsedOptions parsed = ParseOptions("status", desc, args);
  if (parsed.help) {
    PrintCommandHelp("status", "[--python EXE | --site-packages DIR | --root DIR] [--json]", desc);
    return kExitOk;
  }
  env::Environment env = DiscoverEnvironment(parsed.vars);
  store::RealDisk disk;
  store::StateDir state(disk, env.site_packages);
  std::optional<store::EnvLock> lock;
  if (state.Exists()) {
    Result<store::EnvLock> held = store::EnvLock::Acquire(env.site_packages, store::EnvLock::Mode::shared);
    if (!held) throw Fatal(held.error().str());
    lock.emplace(std::move(*held));
  }
  Result<store::Manifest> manifest = state.LoadManifest();
  if (!manifest) throw Fatal(manifest.error().str());
  Result<std::optional<store::Journal>> journal = state.LoadJournal();
  if (!journal) throw Fatal(fmt::format("{}. Way out: {}", journal.error().str(), store::kRecoveryWayOut));

  bool drift = journal->has_value();
  json entries = json::array();
  for (const store::Entry& e : manifest->entries) {
    json files = json::array();
    bool as_left = true;
    for (const store::FileRecord& f : e.files) {
      std::string s = FileState(state, f.path, f.original_sha256, f.patched_sha256);
      as_left &= s == "patched";
      files.push_back({{"path", f.path}, {"state", s}, {"original_sha256", f.original_sha256},
                       {"patched_sha256", f.patched_sha256}});
    }
    drift |= !as_left;
    entries.push_back({{"rule", e.rule}, {"distribution", e.distribution}, {"version", e.version},
                       {"applied_at", e.applied_at}, {"archpatch_version", e.archpatch_version},
                       {"caches", e.caches}, {"as_left", as_left}, {"files", files}});
  }
  json status = {{"site_packages", env.site_packages.string()},
                 {"half_done", journal->has_value() ? HalfDone(state, **journal) : json(nullptr)},
                 {"entries", entries},
                 {"drift", drift}};
  if (parsed.vars.count("json")) {
    fmt::print("{}\n", status.dump(2));
  } else {
    PrintHuman(status);
  }
  return drift ? kExitFindings : kExitOk;
}

}  // namespace archpatch::cli
