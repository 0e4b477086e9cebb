#include "apply/checks.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "apply/prebuilt_edits.h"
#include "apply/unsafe_edits.h"

namespace archpatch::apply {
namespace {

// The refusal without --allow-hazard: every finding of severity error, one line each.
std::string RefusalReasons(const PlanAssessment& assessment) {
  std::string why;
  for (const Finding& f : assessment.findings) {
    if (f.severity != Severity::kError) continue;
    const std::string& through = f.reached_through;
    why += f.kind == gate::Kind::kEmptyKernel
               ? fmt::format("\n  {}:{}:{}: kernel '{}' (built by {}): {}", f.file, f.line, f.column, f.text,
                             through.empty() ? "this rule" : through, f.summary)
               : fmt::format("\n  {}:{}:{}: {}", f.file, f.line, f.column, f.summary);
  }
  return why;
}

}  // namespace

PlanChecks CheckPlan(const StagedPlan& staged, Snapshot& snapshot, const CheckOptions& options) {
  RefuseKnownUnsafeEdits(staged);  // before the hazards: nothing overrides it, dry runs included
  PlanChecks out;
  out.assessment = AssessPlan(staged, snapshot);
  std::vector<Finding> prebuilt = PrebuiltHazards(staged);
  out.assessment.findings.insert(out.assessment.findings.end(), prebuilt.begin(), prebuilt.end());
  SortFindings(out.assessment.findings);
  out.lines = DescribeAssessment(out.assessment);
  out.json["hazards"] = ToJson(out.assessment);
  if (!options.dry_run && out.assessment.Refuses() && !options.allow_hazard) {
    throw Fatal(
        fmt::format("refusing to apply: the plan has hazards (nothing was changed; --allow-hazard applies "
                    "anyway):{}",
                    RefusalReasons(out.assessment)));
  }
  if (!options.verify) return out;
  Result<PlanProof> proof = ProvePlan(staged, options.proof);
  if (!proof) throw Fatal(proof.error().str() + "; nothing was changed");
  std::vector<std::string> lines = DescribeProof(*proof);
  out.lines.insert(out.lines.end(), lines.begin(), lines.end());
  out.json["proof"] = ToJson(*proof);
  if (!proof->ok() && !options.dry_run) {
    throw Fatal(fmt::format("the compiler proof failed, nothing was changed:\n  {}", fmt::join(lines, "\n  ")));
  }
  out.proof = std::move(*proof);
  return out;
}

}  // namespace archpatch::apply
