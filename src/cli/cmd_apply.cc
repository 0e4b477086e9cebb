// archpatch apply: parse the options, call apply::Apply (src/apply/apply.h), print its report.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "apply/apply.h"
#include "arch/arch.h"
#include "cli/command.h"
#include "cli/hazard_cli.h"
#include "cli/options.h"
#include "cli/store_support.h"
#include "env/safe_path.h"
#include "rules/loader.h"
#include "util/input_file.h"
#include "report/json_text.h"

namespace archpatch::cli {
namespace {

using nlohmann::json;

constexpr const char* kSynopsis =
    "[--rule ID|PATH]... [--python EXE | --site-packages DIR | --root DIR] [--plan FILE] "
    "[--dry-run | --check] [--diff] [--json] [--no-clear-cache] [--allow-hazard] [--force]";

po::options_description Options() {
  po::options_description desc("options");
  desc.add_options()("rule", po::value<std::vector<std::string>>()->composing(),
                     "a rule id or a rule file (repeatable)")(
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

struct Output {
  bool check = false;
  bool json = false;
  bool diff = false;
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

apply::ApplyRequest MakeRequest(const po::variables_map& vars) {
  apply::ApplyRequest req;
  if (vars.count("plan")) {
    req.plan = ReadPlanFile(vars["plan"].as<std::string>());
    Result<env::Environment> loaded = env::LoadSitePackages(req.plan->root);
    if (!loaded) throw UsageError(loaded.error().str());
    req.env = std::move(*loaded);
  } else {
    if (!vars.count("rule")) throw UsageError("nothing to apply: give --rule ID|PATH or --plan FILE");
    req.rules = LoadRules(vars);
    req.env = DiscoverEnvironment(vars);
  }
  req.dry_run = vars.count("dry-run") || vars.count("check") ? apply::DryRun::yes : apply::DryRun::no;
  req.checks.allow_hazard = vars.count("allow-hazard") || vars.count("force");
  req.checks.verify = vars.count("verify") > 0;
  req.checks.proof = ProofOptionsFrom(vars);
  req.store = apply::StoreOptionsFromProcess(vars.count("no-clear-cache") == 0);
  req.want_diff = vars.count("diff") || (vars.count("dry-run") && !vars.count("json"));
  return req;
}

json FilesJson(const std::vector<store::FileRecord>& files) {
  json out = json::array();
  for (const store::FileRecord& f : files) out.push_back(store::ToJson(f));
  return out;
}

json RulesJson(const apply::ApplyReport& report) {
  json rules = json::array();
  for (const apply::RuleReport& r : report.rules) {
    json files = r.outcome == apply::RuleOutcome::satisfied ? json::array() : FilesJson(r.files);
    rules.push_back({{"id", r.id},
                     {"changed", r.outcome == apply::RuleOutcome::changed},
                     {"satisfied", r.outcome == apply::RuleOutcome::satisfied},
                     {"already_applied", r.outcome == apply::RuleOutcome::already_applied},
                     {"msg", r.message},
                     {"files", files},
                     {"caches_cleared", ToJson(r.caches_cleared)}});
  }
  return rules;
}

std::vector<std::string> Lines(const apply::ApplyReport& report) {
  std::vector<std::string> lines;
  for (const apply::RuleReport& r : report.rules) lines.push_back(r.message);
  if (report.failure) lines.push_back(report.failure->message);
  return lines;
}

void PrintJson(const Output& out, const apply::ApplyReport& report) {
  json j = {{"changed", report.changed()},
            {"failed", report.failure.has_value()},
            {"msg", fmt::format("{}", fmt::join(Lines(report), "; "))},
            {"check_mode", report.dry_run},
            {"rules", RulesJson(report)},
            {"notes", report.notes},
            {"recovered", ToJson(report.recovered)}};
  if (report.failure) {
    j["on_disk"] = apply::Name(report.failure->on_disk);
    j["restored"] = report.failure->restored;
    j["patched"] = report.failure->patched;
  }
  if (out.diff) j["diff"] = {{"prepared", report.diff}};
  fmt::print("{}\n", report::DumpText(j, 2));
}

void PrintText(const Output& out, const apply::ApplyReport& report) {
  for (const std::string& line : report.checks.lines) fmt::print("{}\n", line);
  if (out.diff || (report.dry_run && !out.check)) fmt::print("{}", report.diff);
  for (const apply::RuleReport& r : report.rules) fmt::print("{}\n", r.message);
  for (const std::string& note : report.notes) fmt::print("note: {}\n", note);
}

int Print(const Output& out, const apply::ApplyReport& report) {
  if (report.dry_run && report.recovered.found) {
    fmt::print(stderr, "archpatch: warning: a half-done transaction is pending; the next apply rolls it back first\n");
  } else {
    PrintRecovery(report.recovered);
  }
  if (out.json && report.dry_run && !out.check) {  // the complete plan, with its hazards
    nlohmann::ordered_json doc = plan::ToJson(report.plan);
    doc["hazards"] = report.checks.json["hazards"];
    fmt::print("{}\n", report::DumpText(doc, 2));
    return report.plan.satisfied() ? kExitFindings : kExitOk;
  }
  out.json ? PrintJson(out, report) : PrintText(out, report);
  if (report.failure) {
    fmt::print(stderr, "archpatch: error: {}\n", report.failure->message);
    return kExitRefused;
  }
  return report.changed() ? kExitOk : kExitFindings;
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
  RefuseTogether(vars, "dry-run", "check");
  RefuseTogether(vars, "plan", "rule");
  for (const char* e : {"python", "site-packages", "root"}) RefuseTogether(vars, "plan", e);
  const Output out{vars.count("check") > 0, vars.count("json") > 0, vars.count("diff") > 0};
  try {
    const apply::ApplyRequest request = MakeRequest(vars);
    std::unique_ptr<store::Disk> disk = store::MakeDisk();
    apply::RealLocker locker;
    return Print(out, apply::Apply(*disk, locker, request));
  } catch (const store::InjectedCrash&) {
    throw;  // a test's stand-in for the process dying: it prints nothing
  } catch (const Fatal& e) {
    if (out.json) PrintJsonFailure(e.what());  // thrown before anything was written
    throw;
  }
}

}  // namespace archpatch::cli
