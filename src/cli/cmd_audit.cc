// archpatch audit: list the gates that keep an arch out (CUDA/C++ #if chains, <nv/target>
// macros, host runtime checks, Python gates). Parses options, calls scan::Audit, prints.
// The JSON document is a contract: docs/audit.md lists every field.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <future>
#include <memory>
#include <numeric>
#include <set>

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

#include "binary/output.h"
#include "binary/python_link.h"
#include "cli/audit_binaries.h"
#include "cli/store_support.h"
#include "cli/command.h"
#include "cli/options.h"
#include "cli/progress.h"
#include "hazard/audit_hook.h"
#include "plan/known_unsafe.h"
#include "plan/rule_coverage.h"
#include "report/groups.h"
#include "report/human.h"
#include "report/json_stream.h"
#include "report/sarif.h"
#include "scan/audit.h"
#include "scan/scan.h"
#include "scan/groups.h"
#include "scan/prebuilt_link.h"
#include "report/json_text.h"
#include "util/process_end.h"

namespace archpatch::cli {
namespace {

constexpr const char* kSynopsis =
    "--arch ARCH [--against ARCH,...] [-D NAME[=VAL]]... [-U NAME]... [--undef-unknown] [--binaries | --binaries-only "
    "| --no-binaries] [--each] [--show-all] [--keep-tests] [--json | --sarif] (PATH... | --python EXE | "
    "--site-packages DIR | --root DIR)";

po::options_description AuditOptionsDescription() {
  po::options_description desc("options");
  desc.add_options()("arch", po::value<std::string>(), "the arch to deploy on (sm_120, 12.0, 120a, ...)")(
      "against", po::value<std::string>(),
      "compare with these arches only (comma-separated); default: every arch nvcc 13 knows")(
      "define,D", po::value<std::vector<std::string>>()->composing(),
      "NAME[=VAL]: treat the macro as defined (as cc -D)")(
      "undef,U", po::value<std::vector<std::string>>()->composing(), "NAME: treat the macro as undefined")(
      "undef-unknown", "every macro not given with -D/-U is undefined, as the compiler sees it")(
      "json", "print one JSON document (docs/audit.md)")(
      "sarif", "print SARIF 2.1.0 for code-scanning services and editors (docs/audit.md)")(
      "each", "list every place under its root cause, with why and whether widening is safe")(
      "show-all", "also list legacy fallbacks and other chips' paths (not exclusions of the target)")(
      "keep-tests", "also audit tests/, benchmarks/, docs/, examples/ (and setup.py in environments)")(
      "jobs,j", po::value<int>()->default_value(0), "worker threads (default: one per core)")(
      "no-hazards", "skip the hazard checks (empty kernels, whether each gate is safe to widen; docs/hazards.md)")(
      "path", po::value<std::vector<std::string>>(), "files or directories to audit");
  AddBinariesOptions(desc);
  AddEnvOptions(desc);
  return desc;
}

arch::Arch ArchOrThrow(const std::string& text) {
  Result<arch::Arch> a = arch::ParseArch(text);
  if (!a) throw UsageError(fmt::format("audit: --arch: {}", a.error().message));
  return *a;
}

void AddMacroFlags(cuda::MacroEnv& env, const po::variables_map& vars, const char* key, bool define) {
  if (!vars.count(key)) return;
  for (const std::string& flag : vars[key].as<std::vector<std::string>>()) {
    Status s = cuda::AddMacroFlag(env, flag, define);
    if (!s) throw UsageError(fmt::format("audit: -{}: {}", define ? 'D' : 'U', s.error().message));
  }
}

bool IsEnvironmentAudit(const po::variables_map& vars) {
  return vars.count("python") || vars.count("site-packages") || vars.count("root");
}

scan::AuditOptions ToAuditOptions(const po::variables_map& vars) {
  if (!vars.count("arch")) throw UsageError("audit: '--arch' is required (for example --arch sm_120)");
  if (!vars.count("path") && !IsEnvironmentAudit(vars)) {
    throw UsageError(
        "audit: no PATH given (a package folder, a source tree or files, or --python/--site-packages/--root)");
  }
  if (vars.count("path") && IsEnvironmentAudit(vars)) {
    throw UsageError("audit: give PATHs or an environment (--python, --site-packages, --root), not both");
  }
  scan::AuditOptions options;
  options.target = ArchOrThrow(vars["arch"].as<std::string>());
  if (vars.count("against")) {
    Result<std::vector<arch::Arch>> against = arch::ParseArchList(vars["against"].as<std::string>());
    if (!against) throw UsageError(fmt::format("audit: --against: {}", against.error().message));
    options.against = *against;
  }
  AddMacroFlags(options.env, vars, "define", true);
  AddMacroFlags(options.env, vars, "undef", false);
  options.env.undef_unknown = vars.count("undef-unknown") > 0;
  if (vars.count("path")) options.paths = vars["path"].as<std::vector<std::string>>();
  options.jobs = vars["jobs"].as<int>();
  options.walk.keep_tests = vars.count("keep-tests") > 0;
  options.walk.skip_setup_py = IsEnvironmentAudit(vars) && !options.walk.keep_tests;
  return options;
}

nlohmann::ordered_json ErrorJson(const Error& e) {
  return {{"file", e.where.file}, {"line", e.where.line}, {"column", e.where.column}, {"message", e.message}};
}

// Streamed (report/json_stream.h): each finding's JSON is made and printed in turn, never the whole
// document at once; the bytes are those of the document's dump(2).
// The groups are printed once `marked` (the findings before it).
void PrintJson(const scan::AuditReport& report, const std::vector<gate::Group>& groups,
               const std::shared_future<void>& marked, int jobs, const nlohmann::ordered_json& binaries = nullptr,
               const std::vector<env::RecordMismatch>* mismatches = nullptr) {
  report::JsonObjectStream json(stdout, jobs);
  json.Member("arch", report.arches.front().name());
  nlohmann::ordered_json against = nlohmann::ordered_json::array();
  for (size_t a = 1; a < report.arches.size(); ++a) against.push_back(report.arches[a].name());
  json.Member("against", against);
  json.ArrayMembers({{"findings", report.findings.size(), nullptr,
                      [&](size_t i, unsigned depth) { return report::FindingText(report.findings[i], depth); }},
                     {"groups", groups.size(), nullptr, [&](size_t i, unsigned depth) {
                        marked.get();
                        return report::GroupText(groups[i], report.findings, depth);
                      }}});
  json.Member("files_scanned", report.files_scanned);
  json.Member("files_parsed", report.files_parsed);
  json.ArrayMember("errors", report.errors.size(), [&](size_t i) { return ErrorJson(report.errors[i]); });
  json.ArrayMember("warnings", report.warnings.size(), [&](size_t i) { return ErrorJson(report.warnings[i]); });
  if (!binaries.is_null()) json.Member("binaries", binaries);  // --binaries (docs/binaries.md)
  if (mismatches) {
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (const env::RecordMismatch& m : *mismatches) {
      rows.push_back({{"distribution", m.distribution}, {"file", m.file.string()}, {"state", m.state}});
    }
    json.Member("record_mismatches", rows);
  }
  json.Close();
}

std::vector<std::string> TableOrder(const scan::AuditReport& report) {
  std::vector<std::string> names;
  for (const arch::Arch& a : arch::AllArches()) {
    if (std::find(report.arches.begin(), report.arches.end(), a) != report.arches.end()) names.push_back(a.name());
  }
  return names;
}

void PrintHuman(const scan::AuditReport& report, const std::vector<gate::Group>& groups,
                const po::variables_map& vars) {
  report::HumanOptions o;
  o.target = report.arches.front().name();
  o.each = vars.count("each") > 0;
  o.show_all = vars.count("show-all") > 0;
  o.color = report::UseColor(stdout);
  o.arch_order = TableOrder(report);
  o.files_scanned = report.files_scanned;
  report::PrintGroups(stdout, groups, report.findings, o);
}

void PrintSarif(const scan::AuditReport& report, const std::vector<gate::Group>& groups) {
  report::SarifOptions o;
  o.target = report.arches.front().name();
  o.tool_version = ARCHPATCH_VERSION;
  std::error_code ec;
  o.working_dir = std::filesystem::current_path(ec).string();
  fmt::print("{}\n", report::IndentedText(report::ToSarif(groups, report.findings, o), 0));  // dump(2), faster
}

// Problems with single files never stop the audit: they go to stderr, in file order.
void PrintProblems(const scan::AuditReport& report) {
  for (const Error& e : report.warnings) fmt::print(stderr, "archpatch: warning: {}\n", e.str());
  for (const Error& e : report.errors) fmt::print(stderr, "archpatch: warning: {} (file skipped)\n", e.str());
}

// The groups' marks: the prebuilt artifacts of their members, the known-unsafe list (its reason
// goes before the prebuilt one) and the shipped rules that cover their roots.
void MarkGroups(std::vector<gate::Group>& groups, const std::vector<Finding>& findings,
                Result<std::vector<const plan::KnownUnsafe*>> unsafe, const plan::RuleLocations& located,
                const std::vector<rules::Rule>& shipped, const arch::Arch& target) {
  scan::MarkPrebuiltGroups(groups, findings, target);
  if (unsafe) {
    plan::ApplyKnownUnsafe(groups, plan::FindKnownUnsafe(groups, *unsafe));
  } else {
    fmt::print(stderr, "archpatch: warning: {}; no root cause is marked 'do not widen'\n", unsafe.error().str());
  }
  std::vector<size_t> roots;
  for (const gate::Group& g : groups) roots.push_back(g.root);
  plan::MarkCovered(groups, plan::CoveringRules(located, shipped, findings, roots, target));
}

// The shipped rules located in the files of every finding: `located` (the modules' files, when
// they were located once the package model had settled their findings) and the files it did not
// locate.
plan::RuleLocations LocateTheRest(const std::vector<rules::Rule>& rules, const std::vector<Finding>& findings,
                                  std::optional<plan::RuleLocations> located, const arch::Arch& target, int jobs) {
  if (!located) {
    std::vector<size_t> every(findings.size());
    std::iota(every.begin(), every.end(), size_t{0});
    return plan::LocateRules(rules, findings, every, target, jobs);
  }
  std::set<std::string_view> done;
  for (const auto& [edit_file, places] : located->places) done.insert(edit_file.second);
  std::vector<size_t> rest;  // a file whose edits matched nothing is tried again: globs alone
  for (size_t i = 0; i < findings.size(); ++i) {
    if (!done.count(findings[i].file)) rest.push_back(i);
  }
  plan::RuleLocations out = plan::LocateRules(rules, findings, rest, target, jobs);
  out.places.merge(located->places);
  return out;
}

// Once the package model has settled the modules' findings, on threads of their own beside the
// C/C++ files the findings round still reads: the prebuilt links of those it resolved (waited for
// at the round's end) and the shipped rules located in the modules' files, into `module_rules`
// (waited for beside the grouping). FlashInfer 0.6.16's gemm_base.py, read and scanned again for
// each, was most of the waits of the report's end on 16 cores. The report's end does the rest.
std::function<std::future<void>(std::vector<Finding>&)> AfterPackageModel(
    const std::shared_future<scan::ArtifactIndex>& artifacts,
    const std::shared_future<std::vector<rules::Rule>>& shipped, const arch::Arch& target, int jobs,
    std::future<std::optional<plan::RuleLocations>>& module_rules, scan::LinkedCalls& linked_calls) {
  return [&module_rules, &linked_calls, shipped, artifacts, target, jobs](std::vector<Finding>& findings) {
    std::vector<std::string> files;
    std::set<std::string_view> seen;
    for (const Finding& f : findings) {
      if (seen.insert(f.file).second) files.push_back(f.file);
    }
    module_rules = std::async(std::launch::async, [shipped, files = std::move(files), target, jobs]() {
      try {
        return std::optional<plan::RuleLocations>(plan::LocateRulesIn(shipped.get(), files, target, jobs));
      } catch (const std::exception&) {  // the report's end meets it again on the main thread
        return std::optional<plan::RuleLocations>();
      }
    });
    // On the worker that ran the model, beside the C/C++ files the others still read: a thread of
    // its own competed with all of them (on 16 cores the findings round's end waited 3-5 ms for
    // it; flashinfer/gemm/gemm_base.py, 323 KB, is most of it). The modules' calls were read
    // when their own findings were linked: they are not read again.
    scan::LinkPrebuilt(findings, artifacts.get(), target, jobs, &linked_calls);
    return std::future<void>();
  };
}

}  // namespace

int RunAudit(const Context&, const std::vector<std::string>& args) {
  po::options_description desc = AuditOptionsDescription();
  ParsedOptions parsed = ParseOptions("audit", desc, args, "path");
  if (parsed.help) {
    PrintCommandHelp("audit", kSynopsis, desc);
    return kExitOk;
  }
  scan::AuditOptions options = ToAuditOptions(parsed.vars);
  options.leave_state_to_process_end = true;  // the report is this command's last work
  scan::PrepareAuditProcess();                // before the record check's and the index's threads
  RefuseTogether(parsed.vars, "binaries", "binaries-only");
  RefuseTogether(parsed.vars, "binaries", "no-binaries");
  const bool environment = IsEnvironmentAudit(parsed.vars);
  // An environment's RECORD check reads other files than the source scan, on one thread: it runs
  // beside it (on the GPU machine's 7.3 GB environment it was 1.1-2 s of a 5 s audit, before
  // it). The binary scan starts after the source scan: beside it, the two peaks added up (202-209
  // MB against 162-172 MB, for 0.6 s).
  std::future<std::vector<env::RecordMismatch>> record_check;
  if (environment) {
    // Its RECORDs are read on the check's thread, one at a time: only the check needs them.
    env::Environment env = DiscoverEnvironment(parsed.vars, /*read_distributions=*/false);
    for (const auto& dir : env.search_paths) options.paths.push_back(dir.string());
    // Only the sources the audit reads (Python, CUDA, C++) are checked: they are what a hand edit
    // or `sed -i` changes, and hashing every file of a GPU environment (7.3 GB: libtorch_cuda.so,
    // cuDNN, ...) was most of an environment audit's 25 s.
    // `--binaries-only` reports no sources, so it has nothing to check against RECORD.
    if (!parsed.vars.count("binaries-only")) {
      record_check = std::async(std::launch::async, [env = std::move(env)] {
        Result<std::vector<env::RecordMismatch>> mismatches =
            env::CheckRecords(env, [](std::string_view path) { return scan::KindOf(path) != scan::FileKind::kOther; });
        if (!mismatches) {
          spdlog::warn("{}; the sources are not checked against RECORD", mismatches.error().str());
          return std::vector<env::RecordMismatch>{};
        }
        return std::move(*mismatches);
      });
    }
  }
  if (parsed.vars.count("binaries-only"))
    return RunBinariesOnly(options.target, options.paths, parsed.vars.count("json"));
  RefuseTogether(parsed.vars, "json", "sarif");
  const bool for_tools = parsed.vars.count("json") || parsed.vars.count("sarif");
  TerminalProgress progress(!for_tools);
  options.on_file_done = progress.Callback();
  if (!parsed.vars.count("no-hazards")) options.after_cuda_file = hazard::HazardPass(options);
  // What the report's end needs besides the findings is read while the scan runs: the artifact
  // index (a walk of the paths and their loader modules) and the shipped rules were a seventh of
  // the audit's single-threaded end on FlashInfer + CUTLASS.
  std::shared_future<scan::ArtifactIndex> artifacts =
      std::async(std::launch::async, [&paths = options.paths] { return scan::IndexArtifacts(paths); }).share();
  // A Python module's gates are linked to what it loads on the worker that scanned it, with its
  // bytes at hand. Each module's calls, read once for its links. Left to the process's end with
  // the report: its thousands of small maps cost 2.2 ms to free on the main thread after the
  // report was printed.
  auto calls = std::make_unique<scan::LinkedCalls>();
  scan::LinkedCalls& linked_calls = *calls;
  options.after_python_file = [artifacts, &linked_calls, target = options.target](
                                  const std::string& file, std::string_view contents,
                                  const python::ModuleSyntax& syntax, std::vector<Finding>& kept) {
    // The index is made on one thread beside the first read: 17-25 ms after the start on 16 cores
    // (FlashInfer + CUTLASS), up to 6 ms after that round's end. A worker scanning a module before
    // then waited for it, every other core idle or the package-macro rounds short of it; it keeps
    // the module's calls instead, and the findings are linked from them after the package model.
    if (artifacts.wait_for(std::chrono::seconds(0)) != std::future_status::ready)
      return linked_calls.KeepUnresolved(file, syntax);
    scan::LinkFilePrebuilt(kept, file, contents, artifacts.get(), target, &syntax, &linked_calls);
  };
  // The known-unsafe list too (7.5 KB of YAML: 7 ms of the serial end), loaded once, beside the
  // rules: one after the other, they were the whole wait of an audit of a small tree.
  std::future<void> known_unsafe = std::async(std::launch::async, [] { plan::ShippedKnownUnsafe(); });
  std::shared_future<std::vector<rules::Rule>> shipped =
      std::async(std::launch::async, [] { return plan::ShippedRules(); }).share();
  std::future<std::optional<plan::RuleLocations>> module_rules;  // started on the worker that ran the model
  options.after_package_model = AfterPackageModel(artifacts, shipped, options.target, scan::WorkerCount(options.jobs),
                                                  module_rules, linked_calls);
  Result<scan::AuditReport> report = scan::Audit(options);
  progress.Finish();
  if (options.after_cuda_file) hazard::RequireFeatures();
  if (!report) throw UsageError(fmt::format("audit: {}", report.error().str()));
  // An environment gets its kernel images reported unasked, and so does a PATH naming a library or
  // cubin (that file alone: the folders beside it only with --binaries).
  const bool named_only = !environment && !parsed.vars.count("binaries") && !report->named_binaries.empty();
  const std::vector<std::string>& binary_paths = named_only ? report->named_binaries : options.paths;
  // The binary scan (one thread) runs beside the report's end: groups, prebuilt links, rule
  // coverage and known-unsafe marks read no binary, and the findings are only read meanwhile.
  std::future<std::optional<binary::BinaryScan>> binary_scan;
  if (BinariesAsked(parsed.vars, environment || named_only)) {
    binary_scan = std::async(std::launch::async, [&target = options.target, &binary_paths] {
      return std::optional<binary::BinaryScan>(ScanAuditBinaries(target, binary_paths));
    });
  }
  const int jobs = scan::WorkerCount(options.jobs);
  // The prebuilt links of the C++ runtime checks (no file read) write each finding's artifacts
  // (scan::LinkPrebuilt); the grouping reads none of them, so they run beside it.
  std::future<void> linked = std::async(std::launch::async, [&] {
    scan::LinkPrebuilt(report->findings, artifacts.get(), options.target, jobs, &linked_calls);
  });
  std::optional<std::vector<env::RecordMismatch>> mismatches;
  if (record_check.valid()) mismatches = record_check.get();
  PrintProblems(*report);
  if (mismatches && !parsed.vars.count("json")) {
    for (const env::RecordMismatch& m : *mismatches) {
      fmt::print(stderr, "archpatch: warning: {}: {} since {} was installed (does not match RECORD)\n", m.file.string(),
                 m.state, m.distribution);
    }
  }
  // The shipped rules' gates are located in the findings' files and the known-unsafe list matched
  // for every finding beside the grouping: they read the findings' places alone, the grouping
  // writes their classes and root links, the prebuilt links their artifacts. Each group then takes
  // its root's answers (16 cores: the two were 7-10 ms of the serial end after the grouping).
  std::future<plan::RuleLocations> located = std::async(std::launch::async, [&] {
    std::optional<plan::RuleLocations> modules = module_rules.valid() ? module_rules.get() : std::nullopt;
    return LocateTheRest(shipped.get(), report->findings, std::move(modules), options.target, jobs);
  });
  auto unsafe = std::async(std::launch::async, [&] {
    known_unsafe.wait();  // loaded by now on all but the smallest trees
    return plan::MatchShippedKnownUnsafe(report->findings, options.target);
  });
  std::vector<gate::Group> groups = scan::BuildGroups(report->findings, options.paths);
  linked.get();
  // The groups' marks read the findings and write the groups alone: `--json` prints the findings
  // meanwhile, and the groups once they are marked (on 16 cores the marks were 1.2-2.3 ms of the
  // serial end, the findings' text 4.7-6.7).
  const std::shared_future<void> marked =
      std::async(std::launch::async, [&] {
        MarkGroups(groups, report->findings, unsafe.get(), located.get(), shipped.get(), options.target);
      }).share();
  std::optional<binary::BinaryScan> binaries;
  if (binary_scan.valid()) binaries = binary_scan.get();
  // Python findings are linked to the no-image binaries their module loads (after the marks,
  // which read the findings).
  if (binaries) {
    marked.get();
    binary::NoteNoImageBinaries(report->findings, *binaries, binary_paths);
  }
  if (parsed.vars.count("json")) {
    PrintJson(*report, groups, marked, jobs, binaries ? binary::ToJson(*binaries) : nlohmann::ordered_json(),
              mismatches ? &*mismatches : nullptr);
  } else {
    marked.get();  // SARIF and the human report begin with the groups
    if (parsed.vars.count("sarif")) {
      PrintSarif(*report, groups);
    } else {
      PrintHuman(*report, groups, parsed.vars);
      if (binaries) fmt::print("\n{}", binary::FormatText(*binaries));
    }
  }
  marked.get();  // marked when no group was printed too
  const bool no_image = binaries && binaries->AnyNoImage();
  // Legacy fallbacks and other chips' paths keep nothing out: they alone leave the exit code 0.
  const bool excluded =
      std::any_of(groups.begin(), groups.end(), [](const gate::Group& g) { return gate::KeepsTargetOut(g.klass); });
  LeaveToProcessEnd(std::move(*report));  // the audit's last step: freeing it cost more than printing it
  LeaveToProcessEnd(std::move(groups));
  LeaveToProcessEnd(std::move(calls));
  return !excluded && !no_image ? kExitOk : kExitFindings;
}

}  // namespace archpatch::cli
