#include "cli/store_support.h"
#include "report/json_text.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace archpatch::cli {

void AddEnvOptions(po::options_description& desc) {
  desc.add_options()("python", po::value<std::string>(), "the environment of this interpreter (default: python3)")(
      "site-packages", po::value<std::string>(), "a site-packages folder")("root", po::value<std::string>(),
                                                                           "a plain tree (distributions optional)");
}

env::Environment DiscoverEnvironment(const po::variables_map& vars, bool read_distributions) {
  RefuseTogether(vars, "python", "site-packages");
  RefuseTogether(vars, "python", "root");
  RefuseTogether(vars, "site-packages", "root");
  env::EnvOptions options;
  options.read_distributions = read_distributions;
  if (vars.count("python")) options.python = vars["python"].as<std::string>();
  if (vars.count("site-packages")) options.site_packages = vars["site-packages"].as<std::string>();
  if (vars.count("root")) options.root = vars["root"].as<std::string>();
  Result<env::Environment> env = env::Discover(options);
  if (!env) throw UsageError(env.error().str());
  return std::move(*env);
}

void PrintRecovery(const store::RecoveryOutcome& r) {
  if (!r.found) return;
  if (r.operation.empty()) {  // a journal that did not parse, set aside by revert --force
    fmt::print(stderr,
               "archpatch: warning: set aside a damaged journal as .archpatch/journal.json.damaged ({}); "
               "the files it named may be half patched: 'archpatch verify' lists files that differ from RECORD\n",
               r.set_aside);
    return;
  }
  fmt::print(stderr,
             "archpatch: note: completed the {} of {} that an earlier run left half done "
             "(transaction {}, started {}): {}\n",
             r.operation, fmt::join(r.rules, ", "), r.transaction, r.started_at,
             r.committed ? "it had committed; only its journal was left"
                         : fmt::format("{} file(s) put back", r.restored.size()));
  for (const std::string& problem : r.skipped) {
    fmt::print(stderr, "archpatch: warning: {}; not put back (journal set aside as .archpatch/journal.json.damaged)\n",
               problem);
  }
  for (const std::string& path : r.left) {
    fmt::print(stderr, "archpatch: warning: {}: changed by someone else meanwhile; left as it is\n", path);
  }
}

nlohmann::json ToJson(const store::RecoveryOutcome& r) {
  if (!r.found) return nullptr;
  return {{"operation", r.operation}, {"transaction", r.transaction}, {"started_at", r.started_at},
          {"rules", r.rules},         {"committed", r.committed},     {"restored", r.restored},
          {"left", r.left},           {"skipped", r.skipped},         {"set_aside", r.set_aside}};
}

nlohmann::json ToJson(const std::vector<store::CacheRecord>& caches) {
  nlohmann::json out = nlohmann::json::array();
  for (const store::CacheRecord& c : caches) out.push_back(store::ToJson(c));
  return out;
}

void PrintJsonFailure(const std::string& message, bool changed) {
  nlohmann::json out = {{"changed", changed}, {"failed", true}, {"msg", message}, {"rules", nlohmann::json::array()}};
  fmt::print("{}\n", report::DumpText(out, 2));
}

}  // namespace archpatch::cli
