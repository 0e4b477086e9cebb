// archpatch verify: installed files against their distribution's RECORD, in the spirit of
// `dpkg --verify`. Files archpatch patched (and that are still as it left them) are reported as
// "patched" with their rule, not as drift. Other checks (a compiler proof of applied edits) can
// join the "checks" list of the JSON output.
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "cli/hazard_cli.h"
#include "cli/options.h"
#include "cli/store_support.h"
#include "env/digest.h"
#include "store/state_dir.h"

namespace archpatch::cli {
namespace {

using nlohmann::json;

// path -> (patched sha256, rule) for every file archpatch recorded.
std::map<std::string, std::pair<std::string, std::string>> PatchedFiles(const env::Environment& env) {
  store::RealDisk disk;
  store::StateDir state(disk, env.site_packages);
  Result<store::Manifest> manifest = state.LoadManifest();
  if (!manifest) throw Fatal(manifest.error().str());
  std::map<std::string, std::pair<std::string, std::string>> patched;
  for (const store::Entry& e : manifest->entries) {
    for (const store::FileRecord& f : e.files) patched[f.path] = {f.patched_sha256, e.rule};
  }
  return patched;
}

json VerifyDistribution(const env::Environment& env, const env::Distribution& dist,
                        const std::map<std::string, std::pair<std::string, std::string>>& patched, bool& drift) {
  json problems = json::array();
  for (const env::FileCheck& check : env::ModifiedFiles(dist)) {
    std::string state(env::FileStateName(check.state));
    json problem = {{"path", check.path}, {"state", state}};
    auto p = patched.find(check.path);
    if (p != patched.end() && check.state == env::FileState::kModified) {
      Result<std::string> bytes = env::ReadFileBytes(dist.root / check.path);
      if (bytes && env::Sha256Hex(*bytes) == p->second.first) {
        problem["state"] = "patched";
        problem["rule"] = p->second.second;
      }
    }
    drift |= problem["state"] != "patched";
    problems.push_back(std::move(problem));
  }
  (void)env;
  return {{"name", dist.normalized_name}, {"version", dist.version}, {"files", dist.record.size()},
          {"problems", problems}};
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
  env::Environment env = DiscoverEnvironment(parsed.vars);
  std::vector<const env::Distribution*> dists;
  if (parsed.vars.count("package")) {
    for (const std::string& name : parsed.vars["package"].as<std::vector<std::string>>()) {
      const env::Distribution* d = env.Find(name);
      if (!d) throw UsageError(fmt::format("package '{}' is not installed in '{}'", name, env.site_packages.string()));
      dists.push_back(d);
    }
  } else {
    for (const env::Distribution& d : env.distributions) dists.push_back(&d);
  }
  auto patched = PatchedFiles(env);
  bool drift = false;
  json results = json::array();
  for (const env::Distribution* d : dists) results.push_back(VerifyDistribution(env, *d, patched, drift));
  if (parsed.vars.count("json")) {
    json out = {{"site_packages", env.site_packages.string()}, {"checks", {"record"}},
                {"distributions", results}, {"drift", drift}};
    fmt::print("{}\n", out.dump(2));
  } else {
    for (const json& d : results) {
      for (const json& p : d["problems"]) {
        std::string rule = p.contains("rule") ? fmt::format("  (archpatch rule '{}')", p["rule"].get<std::string>()) : "";
        fmt::print("{:<9} {} {}  {}{}\n", p["state"].get<std::string>(), d["name"].get<std::string>(),
                   d["version"].get<std::string>(), p["path"].get<std::string>(), rule);
      }
    }
    fmt::print("{} distribution(s) checked against RECORD: {}\n", results.size(),
               drift ? "files differ" : "no unexplained changes");
  }
  return drift ? kExitFindings : kExitOk;
}

}  // namespace archpatch::cli
