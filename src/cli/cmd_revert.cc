// archpatch revert: parse the options, call apply::Revert (src/apply/revert.h), print its report.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "apply/revert.h"
#include "cli/command.h"
#include "cli/options.h"
#include "cli/store_support.h"
#include "report/json_text.h"

namespace archpatch::cli {
namespace {

using nlohmann::json;

constexpr const char* kSynopsis =
    "(--rule ID | --package NAME | --all)... [--python EXE | --site-packages DIR | --root DIR] "
    "[--force] [--no-clear-cache] [--json]";

po::options_description Options() {
  po::options_description desc("options");
  desc.add_options()("rule", po::value<std::vector<std::string>>()->composing(),
                     "revert this applied rule (repeatable)")(
      "package", po::value<std::vector<std::string>>()->composing(), "revert every rule applied to this distribution")(
      "all", "revert everything archpatch applied here")(
      "force", "restore originals even over files changed since apply")("no-clear-cache", "leave JIT caches alone")(
      "json", "print the result as JSON on stdout");
  AddEnvOptions(desc);
  return desc;
}

store::RevertRequest RequestFrom(const po::variables_map& vars) {
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
  return request;
}

int Print(const apply::RevertReport& report, bool as_json) {
  PrintRecovery(report.recovered);
  std::vector<std::string> lines = report.messages;
  json items = json::array();
  for (size_t i = 0; i < report.items.size(); ++i) {
    const store::RevertItem& item = report.items[i];
    items.push_back({{"id", item.rule},
                     {"distribution", item.distribution},
                     {"result", store::Name(item.verdict)},
                     {"changed", item.verdict != store::RevertVerdict::refused},
                     {"msg", lines[i]},
                     {"restored", item.restored},
                     {"caches_cleared", ToJson(item.caches_cleared)}});
  }
  if (lines.empty()) lines.push_back("nothing is applied here: nothing to revert");
  if (as_json) {
    json result = {{"changed", report.changed()},
                   {"failed", report.refused()},
                   {"msg", fmt::format("{}", fmt::join(lines, "; "))},
                   {"rules", items},
                   {"notes", report.notes},
                   {"recovered", ToJson(report.recovered)}};
    fmt::print("{}\n", report::DumpText(result, 2));
  } else {
    for (const std::string& line : lines) fmt::print("{}\n", line);
    for (const std::string& note : report.notes) fmt::print("note: {}\n", note);
  }
  if (report.refused()) {
    if (!as_json) fmt::print(stderr, "archpatch: error: some rules were not reverted (see above)\n");
    return kExitRefused;
  }
  return report.changed() ? kExitOk : kExitFindings;
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
  const bool as_json = vars.count("json") > 0;
  store::RevertRequest request = RequestFrom(vars);
  try {
    const env::Environment env = DiscoverEnvironment(vars);
    std::unique_ptr<store::Disk> disk = store::MakeDisk();
    apply::RealLocker locker;
    const apply::StoreOptions options = apply::StoreOptionsFromProcess(vars.count("no-clear-cache") == 0);
    return Print(apply::Revert(*disk, locker, env, std::move(request), options), as_json);
  } catch (const store::InjectedCrash&) {
    throw;  // a test's stand-in for the process dying: it prints nothing
  } catch (const Fatal& e) {
    if (as_json) PrintJsonFailure(e.what());
    throw;
  }
}

}  // namespace archpatch::cli
