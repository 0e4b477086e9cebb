// archpatch apply: plan the rules against an environment, show the plan (--dry-run, --check) or
// execute it through the store's transaction, clear JIT caches, print what changed.
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "arch/arch.h"
#include "cli/command.h"
#include "cli/hazard_cli.h"
#include "cli/options.h"
#include "cli/store_support.h"
#include "env/digest.h"
#include "hazard/assess.h"
#include "env/safe_path.h"
#include "plan/planner.h"
#include "rules/loader.h"
#include "store/cache_clearer.h"
#include "store/lock.h"
#include "util/input_file.h"

namespace archpatch::cli {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr const char* kSynopsis =
    "[--rule ID|PATH]... [--python EXE | --site-packages DIR | --root DIR] [--plan FILE] "
    "[--dry-run | --check] [--diff] [--json] [--no-clear-cache] [--allow-hazard] [--force]";

po::options_description Options() {
  po::options_description desc("options");
  desc.add_options()("rule", po::value<std::vector<std::string>>()->composing(), "a rule id or a rule file (repeatable)")(
      "arch", po::value<std::string>(), "refuse rules that do not target this arch (sm_120, ...)")(
      "plan", po::value<std::string>(), "apply exactly this reviewed plan (from 'apply --dry-run --json')")(
      "dry-run,n", "print the unified diff (with --json: the complete plan); change nothing")(
      "check", "Ansible's check mode: report what would change, change nothing")(
      "diff", "include the unified diff in the output")("json", "print the result as JSON on stdout")(
      "no-clear-cache", "leave JIT caches alone")("allow-hazard", "apply even if a hazard check objects")(
      "force", "the same as --allow-hazard for apply");
  AddApplyHazardOptions(desc);  // --verify, --proof-engine (docs/hazards.md)
  AddEnvOptions(desc);
  return desc;
}

struct Request {
  bool dry_run = false;  // --dry-run or --check
  bool check = false;
  bool json = false;
  bool diff = false;
  bool clear_caches = true;
};

std::vector<rules::Rule> LoadRules(const po::variables_map& vars) {
  std::vector<rules::Rule> loaded;
  for (const std::string& id : vars["rule"].as<std::vector<std::string>>()) {
    Result<rules::Rule> rule = rules::LoadRule(id);
    if (!rule) throw UsageError(rule.error().str());
    loaded.push_back(std::move(*rule));
  }
  if (vars.count("arch")) {
    Result<arch::Arch> wanted = arch::ParseArch(vars["arch"].as<std::string>());
    if (!wanted) throw UsageError(wanted.error().str());
    for (const rules::Rule& r : loaded) {
      if (std::find(r.targets.begin(), r.targets.end(), *wanted) == r.targets.end()) {
        throw UsageError(fmt::format("rule '{}' does not target '{}' (it targets {})", r.id,
                                     vars["arch"].as<std::string>(), fmt::join(r.target_names, ", ")));
      }
    }
  }
  return loaded;
}

plan::EditPlan ReadPlanFile(const std::string& path) {
  Result<std::string> text = ReadInputFile(path, kMaxStateBytes);
  if (!text) throw UsageError(text.error().str());
  json j = json::parse(*text, nullptr, false);
  if (j.is_discarded()) throw UsageError(fmt::format("'{}' is not valid JSON", path));
  Result<plan::EditPlan> p = plan::PlanFromJson(j);
  if (!p) throw UsageError(fmt::format("{}: {}", path, p.error().str()));
  // A plan file is input like a rule: its paths must stay inside site-packages.
  for (const plan::RulePlan& rule : p->rules) {
    for (const plan::FilePlan& file : rule.files) {
      if (Status safe = env::CheckRelativePath(file.path); !safe) {
        throw UsageError(fmt::format("{}: {}: {}; nothing was changed", path, file.path, safe.error().str()));
      }
    }
  }
  return std::move(*p);
}

// Each file's original bytes, read once (diff, patched bytes).
std::string ReadOriginal(const plan::RulePlan& rule, const plan::FilePlan& file) {
  Result<std::string> bytes = env::ReadFileBytes(fs::path(rule.root) / file.path);
  if (!bytes) throw Fatal(bytes.error().str());
  return std::move(*bytes);
}

std::string PlanDiff(const plan::EditPlan& p) {
  std::string diff;
  for (const plan::RulePlan& rule : p.rules) {
    for (const plan::FilePlan& file : rule.files) {
      std::string before = ReadOriginal(rule, file);
      diff += plan::UnifiedDiff(file.path, before, plan::ApplyEdits(before, file));
    }
  }
  return diff;
}

// The path of a rule's file relative to where .archpatch/ lives.
std::string StorePath(const plan::EditPlan& p, const plan::RulePlan& rule, const plan::FilePlan& file) {
  fs::path relative = (fs::path(rule.root) / file.path).lexically_relative(p.root);
  if (relative.empty() || *relative.begin() == "..") {
    throw Fatal(fmt::format("'{}' lies outside '{}'; archpatch keeps one manifest per site-packages",
                            file.path, p.root));
  }
  return relative.generic_string();
}

store::RuleChange ToChange(const plan::EditPlan& p, const plan::RulePlan& rule, const env::Environment& env) {
  store::RuleChange change;
  store::Entry& e = change.entry;
  e.rule = rule.rule_id;
  e.rule_sha256 = rule.rule_sha256;
  e.distribution = rule.distribution;
  e.version = rule.version;
  e.targets = rule.targets;
  e.caches = rule.caches;
  if (const env::Distribution* d = env.Find(rule.distribution)) e.installer = d->installer;
  for (const plan::FilePlan& file : rule.files) {
    std::string store_path = StorePath(p, rule, file);
    std::string before = ReadOriginal(rule, file);
    if (env::Sha256Hex(before) != file.sha256_before) {
      throw Fatal(fmt::format("{}: file changed since the plan was made (SHA-256 '{}', plan expects '{}'); "
                              "nothing was changed",
                              file.path, env::Sha256Hex(before), file.sha256_before));
    }
    std::string after = plan::ApplyEdits(before, file);
    if (env::Sha256Hex(after) != file.sha256_after) {
      throw Fatal(fmt::format("{}: the plan's edits do not produce its sha256_after; nothing was changed", file.path));
    }
    store::FileChange fc{store_path, file.sha256_before, std::move(after), {}, hazard::BlastRadiusJson(file.path, before, file)};
    for (const plan::TextEdit& edit : file.edits) fc.edits.push_back({edit.line, edit.before, edit.after});
    change.files.push_back(std::move(fc));
  }
  return change;
}

// One rule's line in the result.
struct RuleResult {
  std::string id;
  bool changed = false;
  bool satisfied = false;
  bool already_applied = false;
  std::string message;
  json files = json::array();
  json caches = json::array();
};

json FilesJson(const std::vector<store::FileRecord>& files) {
  json out = json::array();
  for (const store::FileRecord& f : files) out.push_back(store::ToJson(f));
  return out;
}

json PlannedFilesJson(const plan::RulePlan& rule) {
  json out = json::array();
  for (const plan::FilePlan& f : rule.files) {
    json edits = json::array();
    for (const plan::TextEdit& e : f.edits) edits.push_back({{"line", e.line}, {"before", e.before}, {"after", e.after}});
    out.push_back({{"path", f.path}, {"original_sha256", f.sha256_before}, {"patched_sha256", f.sha256_after},
                   {"edits", edits}});
  }
  return out;
}

// Whether the files of an applied entry are still as archpatch left them.
bool StillAsLeft(const store::StateDir& state, const store::Entry& entry) {
  for (const store::FileRecord& f : entry.files) {
    Result<std::string> bytes = env::ReadFileBytes(state.FilePath(f.path));
    if (!bytes || env::Sha256Hex(*bytes) != f.patched_sha256) return false;
  }
  return true;
}

// The result for a rule the manifest already records; refuses one whose files changed since.
RuleResult AlreadyApplied(const store::StateDir& state, const store::Entry& entry) {
  if (!StillAsLeft(state, entry)) {
    throw Fatal(fmt::format("rule '{}' is recorded as applied but its files changed since; run "
                            "'archpatch revert --rule {}' first (nothing was changed)",
                            entry.rule, entry.rule));
  }
  RuleResult r{entry.rule, false, false, true, "", FilesJson(entry.files), json::array()};
  r.message = fmt::format("rule '{}' is already applied (since {}): nothing to do", r.id, entry.applied_at);
  return r;
}

// Rules the manifest already records are not planned again (their old text is gone): they are
// reported as already applied. Returns the rules left to plan.
std::vector<rules::Rule> SkipApplied(std::vector<rules::Rule> rules, const store::StateDir& state,
                                     const store::Manifest& manifest, std::vector<RuleResult>& results) {
  std::vector<rules::Rule> left;
  for (rules::Rule& rule : rules) {
    if (const store::Entry* entry = manifest.Find(rule.id)) {
      results.push_back(AlreadyApplied(state, *entry));
    } else {
      left.push_back(std::move(rule));
    }
  }
  return left;
}

int Report(const Request& req, const std::vector<RuleResult>& results, const std::vector<std::string>& notes,
           const std::string& diff, const json& recovered) {
  bool changed = std::any_of(results.begin(), results.end(), [](const RuleResult& r) { return r.changed; });
  std::vector<std::string> lines;
  for (const RuleResult& r : results) lines.push_back(r.message);
  if (req.json) {
    json rules = json::array();
    for (const RuleResult& r : results) {
      rules.push_back({{"id", r.id}, {"changed", r.changed}, {"satisfied", r.satisfied},
                       {"already_applied", r.already_applied}, {"msg", r.message}, {"files", r.files},
                       {"caches_cleared", r.caches}});
    }
    json out = {{"changed", changed}, {"failed", false}, {"msg", fmt::format("{}", fmt::join(lines, "; "))},
                {"check_mode", req.dry_run}, {"rules", rules}, {"notes", notes}, {"recovered", recovered}};
    if (req.diff) out["diff"] = {{"prepared", diff}};
    fmt::print("{}\n", out.dump(2));
  } else {
    if (req.diff || (req.dry_run && !req.check)) fmt::print("{}", diff);
    for (const std::string& line : lines) fmt::print("{}\n", line);
    for (const std::string& note : notes) fmt::print("note: {}\n", note);
  }
  return changed ? kExitOk : kExitFindings;
}

int DryRun(const Request& req, const plan::EditPlan& p, const store::Manifest& manifest,
           std::vector<RuleResult> results) {
  if (req.json && !req.check) {
    nlohmann::ordered_json doc = plan::ToJson(p);
    doc["hazards"] = hazard::ToJson(hazard::AssessPlan(p));  // blast radius, hazards (docs/hazards.md)
    fmt::print("{}\n", doc.dump(2));
    return p.satisfied() ? kExitFindings : kExitOk;
  }
  for (const plan::RulePlan& rule : p.rules) {
    RuleResult r{rule.rule_id, !rule.satisfied && !manifest.Find(rule.rule_id), rule.satisfied,
                 manifest.Find(rule.rule_id) != nullptr, "", PlannedFilesJson(rule), json::array()};
    r.message = r.already_applied ? fmt::format("rule '{}' is already applied: nothing to do", r.id)
                : r.satisfied     ? fmt::format("rule '{}' is already satisfied: nothing to do", r.id)
                                  : fmt::format("rule '{}' would change {} file(s) (dry run: nothing written)",
                                                r.id, rule.files.size());
    results.push_back(std::move(r));
  }
  return Report(req, results, {}, PlanDiff(p), nullptr);
}

int Execute(const Request& req, const plan::EditPlan& p, const env::Environment& env,
            std::vector<RuleResult> results) {
  std::unique_ptr<store::Disk> disk = store::MakeDisk();
  store::StateDir state(*disk, p.root);
  Result<store::EnvLock> lock = store::EnvLock::Acquire(p.root, store::EnvLock::Mode::exclusive);
  if (!lock) throw Fatal(lock.error().str());
  std::vector<std::string> notes;
  store::TransactionOptions options{PycachePrefix(), {}};
  if (req.clear_caches) options.clear_caches = store::MakeCacheClearer(*disk, LoadCacheKindsOrWarn(), store::ProcessEnv(), &notes);
  store::RecoveryOutcome recovered = RecoverOrThrow(state, options);
  Result<store::Manifest> manifest = state.LoadManifest();
  if (!manifest) throw Fatal(manifest.error().str());

  std::vector<store::RuleChange> changes;
  for (const plan::RulePlan& rule : p.rules) {
    RuleResult r{rule.rule_id, false, rule.satisfied, false, "", json::array(), json::array()};
    if (const store::Entry* entry = manifest->Find(rule.rule_id)) {
      r = AlreadyApplied(state, *entry);
    } else if (rule.satisfied || rule.files.empty()) {
      r.satisfied = true;
      r.message = fmt::format("rule '{}' is already satisfied by {} {}: nothing to do", r.id, rule.distribution,
                              rule.version);
    } else {
      changes.push_back(ToChange(p, rule, env));
    }
    results.push_back(std::move(r));
  }
  std::string diff = req.diff ? PlanDiff(p) : "";
  if (!changes.empty()) {
    Result<store::ApplyOutcome> out = store::ApplyChanges(state, std::move(changes), options);
    if (!out) throw Fatal(out.error().str());
    for (const store::Entry& e : out->recorded) {
      auto r = std::find_if(results.begin(), results.end(), [&](const RuleResult& x) { return x.id == e.rule; });
      r->changed = true;
      r->files = FilesJson(e.files);
      r->caches = ToJson(e.caches_cleared);
      std::string caches;
      for (const store::CacheRecord& c : e.caches_cleared) {
        caches += fmt::format("; cleared cache '{}' ({} file(s), {})", c.name, c.files, HumanBytes(c.bytes));
      }
      r->message = fmt::format("applied rule '{}' to {} {}: {} file(s) changed{}", e.rule, e.distribution,
                               e.version, e.files.size(), caches);
    }
    notes.insert(notes.end(), out->notes.begin(), out->notes.end());
  }
  return Report(req, results, notes, diff, ToJson(recovered));
}

}  // namespace

int RunApply(const Context&, const std::vector<std::string>& args) {
  po::options_description desc = Options();
  ParsedOptions parsed = ParseOptions("apply", desc, args);
  if (parsed.help) {
    PrintCommandHelp("apply", kSynopsis, desc);
    return kExitOk;
  }
  const po::variables_map& vars = parsed.vars;
  Request req{vars.count("dry-run") || vars.count("check"), vars.count("check") > 0, vars.count("json") > 0,
              vars.count("diff") > 0, vars.count("no-clear-cache") == 0};
  RefuseTogether(vars, "plan", "rule");
  for (const char* e : {"python", "site-packages", "root"}) RefuseTogether(vars, "plan", e);
  try {
    plan::EditPlan p;
    env::Environment env;
    std::vector<RuleResult> results;
    store::RealDisk disk;
    if (vars.count("plan")) {
      p = ReadPlanFile(vars["plan"].as<std::string>());
      Result<env::Environment> loaded = env::LoadSitePackages(p.root);
      if (!loaded) throw UsageError(loaded.error().str());
      env = std::move(*loaded);
    } else {
      if (!vars.count("rule")) throw UsageError("nothing to apply: give --rule ID|PATH or --plan FILE");
      std::vector<rules::Rule> rules = LoadRules(vars);
      env = DiscoverEnvironment(vars);
      store::StateDir state(disk, env.site_packages);
      if (!req.dry_run && state.Exists()) {
        // Roll back a half-done transaction before planning, so the plan sees the real files.
        Result<store::EnvLock> lock = store::EnvLock::Acquire(env.site_packages, store::EnvLock::Mode::exclusive);
        if (!lock) throw Fatal(lock.error().str());
        RecoverOrThrow(state, store::TransactionOptions{PycachePrefix(), {}});
      }
      Result<store::Manifest> manifest = state.LoadManifest();
      if (!manifest) throw Fatal(manifest.error().str());
      rules = SkipApplied(std::move(rules), state, *manifest, results);
      p.root = env.site_packages.string();
      if (!rules.empty()) {
        Result<plan::EditPlan> planned = plan::PlanRules(rules, env);
        if (!planned) throw Fatal(planned.error().str() + "; nothing was changed");
        p = std::move(*planned);
      }
    }
    // The hazard checks (docs/hazards.md): a refusal or a failed --verify proof throws before
    // anything is written; otherwise their lines (blast radius per edit, proof) are shown.
    const PlanHazards hazards = CheckPlanHazards(p, vars, req.dry_run);
    if (!req.json) {
      for (const std::string& line : hazards.lines) fmt::print("{}\n", line);
    }
    if (req.dry_run) {
      store::StateDir state(disk, p.root);
      Result<store::Manifest> manifest = state.LoadManifest();
      if (!manifest) throw Fatal(manifest.error().str());
      Result<std::optional<store::Journal>> journal = state.LoadJournal();
      if (journal && journal->has_value()) {
        fmt::print(stderr, "archpatch: warning: a half-done transaction is pending; the next apply rolls it "
                           "back first\n");
      }
      return DryRun(req, p, *manifest, std::move(results));
    }
    return Execute(req, p, env, std::move(results));
  } catch (const Fatal& e) {
    if (req.json) {
      json out = {{"changed", false}, {"failed", true}, {"msg", e.what()}, {"rules", json::array()}};
      fmt::print("{}\n", out.dump(2));
    }
    throw;
  }
}

}  // namespace archpatch::cli
