// archpatch status: parse the options, call apply::Status (src/apply/status.h), print it.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "apply/status.h"
#include "cli/command.h"
#include "cli/options.h"
#include "cli/store_support.h"
#include "store/transaction.h"
#include "report/json_text.h"

namespace archpatch::cli {
namespace {

using nlohmann::json;

json HalfDoneJson(const apply::HalfDone& h) {
  json files = json::array();
  for (const apply::FileStatus& f : h.files) files.push_back({{"path", f.path}, {"state", apply::Name(f.state)}});
  return {{"operation", h.journal.operation},
          {"transaction", h.journal.transaction},
          {"started_at", h.journal.started_at},
          {"rules", h.journal.rules},
          {"committed", h.committed},
          {"files", files},
          {"problems", h.problems}};
}

json StatusJson(const apply::StatusReport& report) {
  json entries = json::array();
  for (const apply::EntryStatus& s : report.entries) {
    const store::Entry& e = s.entry;
    json files = json::array();
    for (const apply::FileStatus& f : s.files) {
      files.push_back({{"path", f.path},
                       {"state", apply::Name(f.state)},
                       {"original_sha256", f.original_sha256},
                       {"patched_sha256", f.patched_sha256}});
    }
    entries.push_back({{"rule", e.rule},
                       {"distribution", e.distribution},
                       {"version", e.version},
                       {"applied_at", e.applied_at},
                       {"archpatch_version", e.archpatch_version},
                       {"caches", e.caches},
                       {"as_left", s.as_left},
                       {"files", files}});
  }
  return {{"site_packages", report.site_packages.string()},
          {"half_done", report.half_done ? HalfDoneJson(*report.half_done) : json(nullptr)},
          {"entries", entries},
          {"drift", report.drift()}};
}

void PrintHalfDone(const apply::HalfDone& h) {
  if (h.committed) {
    fmt::print(
        "HALF DONE: the {} of {} (transaction {}, started {}) is applied and recorded, but its journal was "
        "left behind; the next 'archpatch apply' or 'archpatch revert' removes it\n",
        h.journal.operation, fmt::join(h.journal.rules, ", "), h.journal.transaction, h.journal.started_at);
  } else {
    fmt::print("HALF DONE: the {} of {} (transaction {}, started {}) did not finish; {}\n", h.journal.operation,
               fmt::join(h.journal.rules, ", "), h.journal.transaction, h.journal.started_at,
               h.problems.empty() ? "the next 'archpatch apply' or 'archpatch revert' rolls it back"
                                  : fmt::format("it cannot be rolled back whole ({}). Way out: {}",
                                                fmt::join(h.problems, "; "), store::kRecoveryWayOut));
  }
  for (const apply::FileStatus& f : h.files) fmt::print("  {:<9} {}\n", apply::Name(f.state), f.path);
}

void PrintHuman(const apply::StatusReport& report) {
  if (report.half_done) PrintHalfDone(*report.half_done);
  if (report.entries.empty()) fmt::print("no rules applied in {}\n", report.site_packages.string());
  for (const apply::EntryStatus& s : report.entries) {
    const store::Entry& e = s.entry;
    fmt::print("{}  {} {}  applied {} by archpatch {}{}\n", e.rule, e.distribution, e.version, e.applied_at,
               e.archpatch_version, s.as_left ? "" : "  (CHANGED SINCE)");
    for (const apply::FileStatus& f : s.files) fmt::print("  {:<9} {}\n", apply::Name(f.state), f.path);
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
  const env::Environment env = DiscoverEnvironment(parsed.vars);
  store::RealDisk disk;
  apply::RealLocker locker;
  const apply::StatusReport report = apply::ReadStatus(disk, locker, env.site_packages);
  if (parsed.vars.count("json")) {
    fmt::print("{}\n", report::DumpText(StatusJson(report), 2));
  } else {
    PrintHuman(report);
  }
  return report.drift() ? kExitFindings : kExitOk;
}

}  // namespace archpatch::cli
