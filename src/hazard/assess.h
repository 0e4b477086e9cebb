// AssessPlan: the hazard checks of an EditPlan, run by `archpatch apply` before anything is
// written. For every CUDA gate edit: its blast radius and whether the block it opens is
// widen-safe for the rule's targets. For every Python gate edit: the CUDA sources that Python
// file builds (named in it, found in the package, with the headers they include) and any kernel
// in them that would still compile to an empty body on a target after the plan.
// Findings of severity error make apply refuse unless --allow-hazard (or --force) is given.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "cuda/macro_env.h"
#include "hazard/blast_radius.h"
#include "hazard/proof.h"
#include "plan/edit_plan.h"
#include "report/finding.h"

namespace archpatch::hazard {

struct EditAssessment {
  std::string rule;
  std::string file;   // as in the plan (relative to the rule's root)
  int line = 0, column = 0;
  std::string kind;   // the plan edit's kind
  std::string before, after;
  std::vector<std::string> radius;  // arches whose compiled code changes (cuda-gate edits)
  std::string widen;                // widen-safe | widen-unsafe | unknown ("" for non-CUDA edits)
  std::string reason;               // WidenSentence for people
};

struct PlanAssessment {
  std::vector<Finding> findings;  // kinds "widen-unsafe" (error), "widen-unknown" (warning),
                                  // "empty-kernel" (error)
  std::vector<EditAssessment> edits;
  std::vector<std::string> notes;  // what could not be checked, in plain words

  // Whether apply must refuse without --allow-hazard: any finding of severity error.
  bool Refuses() const;
};

// Reads each planned file from disk (rule root + path), as the plan was made against it.
PlanAssessment AssessPlan(const plan::EditPlan& plan, const cuda::MacroEnv& env = {});

// The value for store::FileChange::blast_radius of one planned file: {"arches": [...],
// "edits": [{"line": N, "arches": [...]}]} for a CUDA/C++ file, null for any other file.
nlohmann::json BlastRadiusJson(const std::string& path, std::string_view original, const plan::FilePlan& file,
                               const cuda::MacroEnv& env = {});

nlohmann::ordered_json ToJson(const PlanAssessment& a);

// Lines for people (dry run and refusals): one per edit with its blast radius and verdict, then
// one paragraph per finding.
std::vector<std::string> DescribeAssessment(const PlanAssessment& a);

// The compiler proof of every CUDA/C++ file of the plan (proof.h), on the bytes before and after
// the edits, in memory: run it before writing anything and a failed proof changes nothing.
struct PlanProof {
  std::vector<FileProof> files;
  std::vector<std::string> skipped;  // files not proven (not CUDA/C++), in plain words
  bool ok() const;
};
Result<PlanProof> ProvePlan(const plan::EditPlan& plan, const ProofOptions& options = {});

nlohmann::ordered_json ToJson(const PlanProof& proof);

// "proof: pkg/x.cuh: proven with nvcc: ..." lines for people.
std::vector<std::string> DescribeProof(const PlanProof& proof);

}  // namespace archpatch::hazard
