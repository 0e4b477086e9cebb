// archpatch revert: put back, byte for byte, what apply changed (store/transaction.h).
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "cli/options.h"
#include "cli/store_support.h"
#include "env/digest.h"
#include "store/cache_clearer.h"
#include "store/lock.h"

namespace archpatch::cli {
namespace {

using nlohmann::json;

constexpr const char* kSynopsis =
    "(--rule ID | --package NAME | --all)... [--python EXE | --site-packages DIR | --root DIR] "
    "[--force] [--no-clear-cache] [--json]";

po::options_description Options() {
  po::options_description desc("options");
  desc.add_options()("rule", po::value<std::vector<std::string>>()->composing(), "revert this applied rule (repeatable)")(
      "package", po::value<std::vector<std::string>>()->composing(), "revert every rule applied to this distribution")(
      "all", "revert everything archpatch applied here")(
      "force", "restore originals even over files changed since apply")(
      "no-clear-cache", "leave JIT caches alone")("json", "print the result as JSON on stdout");
  AddEnvOptions(desc);
  return desc;
}

// After a restore, the file should again be what RECORD says, unless it already differed before.
std::vector<std::string> RecordNotes(const env::Environment& env, const store::RevertOutcome& out) {
  std::vector<std::string> notes;
  for (const store::RevertItem& item : out.items) {
    const env::Distribution* dist = env.Find(item.distribution);
    if (!dist) continue;
    for (const std::string& path : item.restored) {
      const env::RecordEntry* row = dist->FindRecord(path);
      Result<std::string> bytes = env::ReadFileBytes(env.site_packages / path);
      if (row && bytes && row->hash_algorithm == "sha256" && env::Sha256UrlsafeB64(*bytes) != row->hash) {
        notes.push_back(fmt::format("'{}' has its original bytes again, which already differed from RECORD "
                                    "before archpatch patched it",
                                    path));
      }
    }
  }
  return notes;
}

std::string Message(const store::RevertItem& item) {
  switch (item.verdict) {
    case store::RevertVerdict::reverted: {
      std::string caches;
      for (const store::CacheRecord& c : item.caches_cleared) {
        caches += fmt::format("; cleared cache '{}' ({} file(s), {})", c.name, c.files, HumanBytes(c.bytes));
      }
      return fmt::format("reverted rule '{}': {} file(s) restored{}", item.rule, item.restored.size(), caches);
    }
    case store::RevertVerdict::retired:
      return fmt::format("retired rule '{}': {}", item.rule, item.reason);
    case store::RevertVerdict::refused:
      return fmt::format("refused to revert rule '{}': {}", item.rule, item.reason);
  }
  return "";
}

}  // namespace

int RunRevert(const Context&, const std::vector<std::string>& args) {
  po::options_description desc = Options();
  ParsedOptions parsed = ParseOptions("revert", desc, args);
  if (parsed.help) {
    PrintCommandHelp("revert", kSynopsis, desc);
    return kExitOk;
  }
  const po::variables_map& vars = parsed.vars;
  bool as_json = vars.count("json") > 0;
  store::RevertRequest request;
  if (vars.count("rule")) request.rules = vars["rule"].as<std::vector<std::string>>();
  if (vars.count("package")) {
    for (const std::string& p : vars["package"].as<std::vector<std::string>>()) {
      request.packages.push_back(env::NormalizeName(p));
    }
  }
  request.all = vars.count("all") > 0;
  request.force = vars.count("force") > 0;
  if (request.rules.empty() && request.packages.empty() && !request.all) {
    throw UsageError("nothing to revert: give --rule ID, --package NAME or --all");
  }
  RefuseTogether(vars, "all", "rule");
  RefuseTogether(vars, "all", "package");
  try {
    env::Environment env = DiscoverEnvironment(vars);
    request.matches_record = [&env](const store::Entry& e, const store::FileRecord& f, const std::string&) {
      return MatchesInstalledRecord(env, e, f);
    };
    std::unique_ptr<store::Disk> disk = store::MakeDisk();
    store::StateDir state(*disk, env.site_packages);
    std::vector<std::string> notes;
    store::TransactionOptions options{PycachePrefix(), {}};
    options.force_recovery = request.force;  // the way out of a rollback that cannot be done whole
    if (!vars.count("no-clear-cache")) {
      options.clear_caches = store::MakeCacheClearer(*disk, LoadCacheKindsOrWarn(), store::ProcessEnv(), &notes);
    }
    store::RecoveryOutcome recovered;
    Result<store::RevertOutcome> out = store::RevertOutcome{};
    if (state.Exists()) {
      Result<store::EnvLock> lock = store::EnvLock::Acquire(env.site_packages, store::EnvLock::Mode::exclusive);
      if (!lock) throw Fatal(lock.error().str());
      recovered = RecoverOrThrow(state, options);
      out = store::RevertEntries(state, request, options);
    } else {
      out = store::RevertEntries(state, request, options);  // nothing applied: only errors for names
    }
    if (!out) throw UsageError(out.error().str());
    std::vector<std::string> record_notes = RecordNotes(env, *out);
    notes.insert(notes.end(), record_notes.begin(), record_notes.end());

    bool changed = false, refused = false;
    json items = json::array();
    std::vector<std::string> lines;
    for (const store::RevertItem& item : out->items) {
      changed |= item.verdict != store::RevertVerdict::refused;
      refused |= item.verdict == store::RevertVerdict::refused;
      lines.push_back(Message(item));
      items.push_back({{"id", item.rule}, {"distribution", item.distribution}, {"result", store::Name(item.verdict)},
                       {"changed", item.verdict != store::RevertVerdict::refused}, {"msg", lines.back()},
                       {"restored", item.restored}, {"caches_cleared", ToJson(item.caches_cleared)}});
    }
    if (lines.empty()) lines.push_back("nothing is applied here: nothing to revert");
    if (as_json) {
      json result = {{"changed", changed},  {"failed", refused}, {"msg", fmt::format("{}", fmt::join(lines, "; "))},
                     {"rules", items},      {"notes", notes},    {"recovered", ToJson(recovered)}};
      fmt::print("{}\n", result.dump(2));
    } else {
      for (const std::string& line : lines) fmt::print("{}\n", line);
      for (const std::string& note : notes) fmt::print("note: {}\n", note);
    }
    if (refused) {
      if (!as_json) fmt::print(stderr, "archpatch: error: some rules were not reverted (see above)\n");
      return kExitRefused;
    }
    return changed ? kExitOk : kExitFindings;
  } catch (const Fatal& e) {
    if (as_json) {
      fmt::print("{}\n", json{{"changed", false}, {"failed", true}, {"msg", e.what()}, {"rules", json::array()}}.dump(2));
    }
    throw;
  }
}

}  // namespace archpatch::cli
