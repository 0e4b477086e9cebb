// archpatch verify: parse the options, call apply::VerifyRecords (src/apply/verify.h) or the
// compiler proof (hazard_cli.h), print the result.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "apply/verify.h"
#include "cli/command.h"
#include "cli/hazard_cli.h"
#include "cli/options.h"
#include "cli/store_support.h"
#include "report/json_text.h"

namespace archpatch::cli {
namespace {

using nlohmann::json;

std::vector<const env::Distribution*> Selected(const env::Environment& env, const po::variables_map& vars) {
  std::vector<const env::Distribution*> dists;
  if (!vars.count("package")) {
    for (const env::Distribution& d : env.distributions) dists.push_back(&d);
    return dists;
  }
  for (const std::string& name : vars["package"].as<std::vector<std::string>>()) {
    const env::Distribution* d = env.Find(name);
    if (!d) throw UsageError(fmt::format("package '{}' is not installed in '{}'", name, env.site_packages.string()));
    dists.push_back(d);
  }
  return dists;
}

json ToJson(const apply::DistributionCheck& d) {
  json problems = json::array();
  for (const apply::RecordProblem& p : d.problems) {
    json problem = {{"path", p.path}, {"state", p.state}};
    if (!p.rule.empty()) problem["rule"] = p.rule;
    problems.push_back(std::move(problem));
  }
  return {{"name", d.name}, {"version", d.version}, {"files", d.files}, {"problems", problems}};
}

void PrintHuman(const apply::VerifyReport& report) {
  for (const apply::DistributionCheck& d : report.distributions) {
    for (const apply::RecordProblem& p : d.problems) {
      std::string rule = p.rule.empty() ? "" : fmt::format("  (archpatch rule '{}')", p.rule);
      fmt::print("{:<9} {} {}  {}{}\n", p.state, d.name, d.version, p.path, rule);
    }
  }
  fmt::print("{} distribution(s) checked against RECORD: {}\n", report.distributions.size(),
             report.drift ? "files differ" : "no unexplained changes");
}

}  // namespace

int RunVerify(const Context& ctx, const std::vector<std::string>& args) {
  if (WantsProof(args)) return RunVerifyProof(ctx, args);  // the compiler proof (docs/hazards.md)
  po::options_description desc("options");
  desc.add_options()("package", po::value<std::vector<std::string>>()->composing(),
                     "only this distribution (repeatable)")("json", "print the result as JSON on stdout");
  AddEnvOptions(desc);
  ParsedOptions parsed = ParseOptions("verify", desc, args);
  if (parsed.help) {
    PrintCommandHelp("verify", "[--package NAME]... [--python EXE | --site-packages DIR | --root DIR] [--json]", desc);
    return kExitOk;
  }
  const env::Environment env = DiscoverEnvironment(parsed.vars);
  store::RealDisk disk;
  apply::RealLocker locker;
  const apply::VerifyReport report = apply::VerifyRecords(disk, locker, env, Selected(env, parsed.vars));
  if (parsed.vars.count("json")) {
    json results = json::array();
    for (const apply::DistributionCheck& d : report.distributions) results.push_back(ToJson(d));
    json out = {{"site_packages", env.site_packages.string()},
                {"checks", {"record"}},
                {"distributions", results},
                {"drift", report.drift}};
    fmt::print("{}\n", report::DumpText(out, 2));
  } else {
    PrintHuman(report);
  }
  return report.drift ? kExitFindings : kExitOk;
}

}  // namespace archpatch::cli
