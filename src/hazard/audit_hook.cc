#include "hazard/audit_hook.h"

#include <fmt/format.h>

#include "hazard/check.h"
#include "hazard/source.h"

namespace archpatch::hazard {
namespace {

void AddExplanation(Finding& f) { f.explain = ExplainLines(f); }

void CheckScanned(CheckOptions options, scan::ScannedFile& file, std::vector<Finding>& findings,
                  std::vector<Error>& warnings) {
  if (file.directives && file.verdicts) {
    options.directives = file.directives, options.verdicts = file.verdicts;  // as the gates were evaluated
  } else {
    options.env = file.env;  // with the package's cross-file macros, as the gates were evaluated
  }
  // The scan's tokens and line index are not needed after this file: the source takes them over,
  // with the functions the scan found.
  const ParsedSource source =
      FromScan(file.contents, std::move(file.tokens),
               file.lines ? std::move(*file.lines) : cuda::LineIndex(file.contents), file.functions);
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
  (void)DefaultFeatures();  // load the table once, before the workers share it
  return [options](scan::ScannedFile& file, std::vector<Finding>& findings, std::vector<Error>& warnings) {
    CheckScanned(options, file, findings, warnings);
  };
}

}  // namespace archpatch::hazard
