// archpatch rules list|show|check|test: helps rule authors (docs/rules.md).
#include <filesystem>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "cli/options.h"
#include "plan/rule_fixture.h"
#include "rules/loader.h"
#include "util/result.h"
#include "report/json_text.h"

namespace archpatch::cli {
namespace {
namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

constexpr char kSynopsis[] = "list [--json] | show ID [--json] | check FILE... | test [--dir DIR] [ID...]";

std::string EditSummary(const rules::Edit& e) {
  std::string what;
  if (const auto* g = std::get_if<rules::CudaGate>(&e.action)) {
    what = fmt::format("macro {}{}, {}", g->macro, g->scope.empty() ? "" : ", scope " + g->scope,
                       cuda::WidenStrategyName(g->strategy));
  } else if (const auto* g = std::get_if<rules::PythonGate>(&e.action)) {
    what = fmt::format("scope {}, name {}, add {}", g->scope.empty() ? "*" : g->scope, g->name.empty() ? "*" : g->name,
                       rules::AddFormName(g->add));
  } else {
    const auto& r = std::get<rules::Replace>(e.action);
    what = fmt::format("{}'{}' -> '{}'", r.scope.empty() ? "" : "in " + r.scope + ": ", r.old_text, r.new_text);
  }
  return fmt::format("{} {} ({}){}", e.KindName(), e.file, what, e.expect ? fmt::format(", expect {}", *e.expect) : "");
}

Json RuleJson(const rules::Rule& r) {
  Json edits = Json::array();
  for (const rules::Edit& e : r.edits) {
    edits.push_back({{"kind", e.KindName()},
                     {"file", e.file},
                     {"summary", EditSummary(e)},
                     {"expect", e.expect ? Json(*e.expect) : Json(nullptr)}});
  }
  return {{"id", r.id},
          {"path", r.path.string()},
          {"distribution", r.distribution},
          {"versions", r.versions},
          {"targets", r.target_names},
          {"caches", r.caches},
          {"summary", r.summary},
          {"notes", r.notes},
          {"sha256", rules::Sha256Of(r)},
          {"edits", edits}};
}

int List(bool json) {
  Json out = Json::array();
  int status = kExitOk;
  for (const Result<rules::Rule>& rule : rules::LoadRuleFiles(rules::AllRuleFiles(rules::RuleDirectories()))) {
    if (!rule) {
      fmt::print(stderr, "archpatch: error: {}\n", rule.error().str());
      status = kExitUsage;
      continue;
    }
    if (json) {
      out.push_back(RuleJson(*rule));
    } else {
      fmt::print("{:<44} {:<20} {:<16} {:<16} {}\n", rule->id, rule->distribution,
                 rule->versions.empty() ? "*" : rule->versions, fmt::format("{}", fmt::join(rule->target_names, ",")),
                 rule->summary);
    }
  }
  if (json) fmt::print("{}\n", report::DumpText(out, 2));
  return status;
}

int Show(const std::string& id, bool json) {
  Result<rules::Rule> rule = rules::LoadRule(id);
  if (!rule) throw UsageError(rule.error().str());
  if (json) {
    fmt::print("{}\n", report::DumpText(RuleJson(*rule), 2));
    return kExitOk;
  }
  const rules::Rule& r = *rule;
  fmt::print("{}: {}\n  file: {}\n  distribution: {} {}\n  targets: {}\n  caches: {}\n  edits:\n", r.id, r.summary,
             r.path.string(), r.distribution, r.versions.empty() ? "(any version)" : r.versions,
             fmt::join(r.target_names, ", "),
             r.caches.empty() ? "(none)" : fmt::format("{}", fmt::join(r.caches, ", ")));
  for (size_t i = 0; i < r.edits.size(); ++i) fmt::print("    {}. {}\n", i + 1, EditSummary(r.edits[i]));
  if (!r.notes.empty()) fmt::print("\nnotes:\n{}{}", r.notes, r.notes.ends_with('\n') ? "" : "\n");
  return kExitOk;
}

int Check(const std::vector<std::string>& files) {
  if (files.empty()) throw UsageError("rules check: name at least one rule file");
  int status = kExitOk;
  for (const std::string& file : files) {
    if (!rules::IsRuleFileName(file)) {  // `rules check rules/*.yaml` also names caches.yaml
      fmt::print("skipped {} (not a rule file)\n", file);
      continue;
    }
    Result<rules::Rule> rule = rules::LoadRuleFile(file);
    if (rule) {
      fmt::print("ok {}\n", file);
    } else {
      fmt::print(stderr, "archpatch: error: {}\n", rule.error().str());
      status = kExitUsage;
    }
  }
  return status;
}

int Test(const std::vector<std::string>& ids, const std::string& dir) {
  std::vector<fs::path> files;
  if (ids.empty()) {
    files = rules::AllRuleFiles(dir.empty() ? rules::RuleDirectories() : std::vector<fs::path>{dir});
  }
  for (const std::string& id : ids) {
    files.push_back(dir.empty() || id.find('/') != std::string::npos ? fs::path(id) : fs::path(dir) / (id + ".yaml"));
  }
  int passed = 0, failed = 0;
  for (const fs::path& file : files) {
    Result<rules::Rule> rule = file.has_parent_path() ? rules::LoadRuleFile(file) : rules::LoadRule(file.string());
    if (!rule) {
      fmt::print("FAIL {}: {}\n", file.stem().string(), rule.error().str());
      ++failed;
      continue;
    }
    plan::FixtureResult result = plan::TestRuleFixture(*rule);
    if (result.passed) {
      fmt::print("PASS {}\n", rule->id);
      ++passed;
    } else {
      fmt::print("FAIL {}: {}\n{}", rule->id, result.message, result.diff);
      ++failed;
    }
  }
  if (files.empty()) throw UsageError("rules test: no rules found (set ARCHPATCH_RULES_DIR or use --dir)");
  fmt::print("{} passed, {} failed\n", passed, failed);
  return failed ? kExitFindings : kExitOk;
}

}  // namespace

int RunRules(const Context&, const std::vector<std::string>& args) {
  po::options_description desc("options");
  desc.add_options()("json", "print JSON (list, show)")("dir", po::value<std::string>(),
                                                        "test: the rules of this folder only")(
      "words", po::value<std::vector<std::string>>()->multitoken(), "subcommand and its arguments");
  ParsedOptions opts = ParseOptions("rules", desc, args, "words");
  if (opts.help) {
    PrintCommandHelp("rules", kSynopsis, desc);
    return kExitOk;
  }
  std::vector<std::string> words =
      opts.vars.count("words") ? opts.vars["words"].as<std::vector<std::string>>() : std::vector<std::string>{};
  if (words.empty()) throw UsageError(fmt::format("rules: say what to do: {}", kSynopsis));
  const std::string verb = words[0];
  words.erase(words.begin());
  const bool json = opts.vars.count("json") > 0;
  const std::string dir = opts.vars.count("dir") ? opts.vars["dir"].as<std::string>() : "";
  if (verb == "list" && words.empty()) return List(json);
  if (verb == "show" && words.size() == 1) return Show(words[0], json);
  if (verb == "check") return Check(words);
  if (verb == "test") return Test(words, dir);
  throw UsageError(
      fmt::format("rules: unknown or malformed subcommand '{}' (usage: archpatch rules {})", verb, kSynopsis));
}

}  // namespace archpatch::cli
