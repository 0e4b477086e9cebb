#include "hazard/audit_hook.h"

#include <future>

#include <fmt/format.h>

#include "hazard/check.h"
#include "hazard/source.h"
#include "util/data_dir.h"

namespace archpatch::hazard {
namespace {

void AddExplanation(Finding& f) { f.explain = ExplainLines(f); }

const FeatureTable* FeaturesOrNone() {
  try {
    return &DefaultFeatures();
  } catch (...) {
    return nullptr;  // RequireFeatures throws it again
  }
}

void CheckScanned(CheckOptions options, scan::ScannedFile& file, std::vector<Finding>& findings,
                  std::vector<Error>& warnings) {
  options.loops = file.loops;
  if (file.directives && file.verdicts) {
    options.directives = file.directives, options.verdicts = file.verdicts;  // as the gates were evaluated
  } else {
    options.env = file.env;  // with the package's cross-file macros, as the gates were evaluated
  }
  // The scan's tokens and line index are not needed after this file: the source takes them over,
  // with the functions the scan found.
  const ParsedSource source =
      FromScan(file.contents, std::move(file.tokens),
               file.lines ? std::move(*file.lines) : cuda::LineIndex(file.contents), file.functions, file.loops);
  Result<FileHazards> hazards = CheckSource(file.path, source, options);
  if (!hazards) {
    warnings.push_back(Error{fmt::format("hazard checks skipped: {}", hazards.error().message), {file.path, 0, 0}});
    return;
  }
  AnnotateGateFindings(findings, *hazards, options.target);
  for (Finding& f : findings) {
    if (f.kind == gate::Kind::kCudaGate) AddExplanation(f);
  }
  for (Finding& f : hazards->empty_kernels) {
    AddExplanation(f);
    findings.push_back(std::move(f));
  }
}

}  // namespace

scan::FilePass HazardPass(const scan::AuditOptions& audit) {
  CheckOptions options;
  options.arches = scan::VerdictArches(audit.target, audit.against);
  options.target = options.arches.front();
  // The feature table (rules/features.yaml, 3 ms of yaml-cpp) is read beside the walk and the
  // first round, which need none of it: it was the longest step of the audit's serial start on 16
  // cores. A table that cannot be read checks no file here; the audit fails on it after the scan
  // (RequireFeatures), on the main thread, as it failed before the scan until then.
  if (const Result<DataDir>& data = FindDataDir(); !data) throw Fatal(data.error().message);  // no data at all: now
  std::shared_future<const FeatureTable*> table = std::async(std::launch::async, FeaturesOrNone).share();
  return [options, table](scan::ScannedFile& file, std::vector<Finding>& findings, std::vector<Error>& warnings) {
    CheckOptions with_table = options;
    with_table.features = table.get();
    if (with_table.features) CheckScanned(std::move(with_table), file, findings, warnings);
  };
}

void RequireFeatures() { (void)DefaultFeatures(); }

}  // namespace archpatch::hazard
