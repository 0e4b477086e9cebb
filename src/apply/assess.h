// AssessPlan: the hazard checks of an EditPlan, run by `archpatch apply` before anything is
// written (moved here from src/hazard, which keeps the analysis of bytes and spans this uses). For every CUDA gate
// edit: its blast radius and whether the block it opens is widen-safe for the rule's targets. For every Python gate
// edit: the CUDA sources that Python file builds (named in it, found in the package, with the headers they include) and
// any kernel in them that would still compile to an empty body on a target after the plan. Findings of severity error
// make apply refuse unless --allow-hazard (or --force) is given.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "apply/snapshot.h"
#include "cuda/macro_env.h"
#include "hazard/blast_radius.h"
#include "hazard/proof.h"
#include "plan/edit_plan.h"
#include "gate/finding.h"

namespace archpatch::apply {

struct EditAssessment {
  std::string rule;
  std::string file;  // as in the plan (relative to the rule's root)
  int line = 0, column = 0;
  std::string kind;  // the plan edit's kind
  std::string before, after;
  std::vector<std::string> radius;  // arches whose compiled code changes (cuda-gate edits)
  std::string widen;                // widen-safe | widen-unsafe | unknown ("" for non-CUDA edits)
  std::string reason;               // WidenSentence for people
};

// The blast radius of one planned CUDA/C++ file, as the manifest records it
// (store::FileChange::blast_radius): {"arches": [...], "edits": [{"line": N, "arches": [...]}]}.
struct FileRadius {
  std::string rule;
  std::string file;  // as in the plan
  nlohmann::json json;
};

struct PlanAssessment {
  std::vector<Finding> findings;  // kinds "widen-unsafe" (error), "widen-unknown" (warning),
                                  // "empty-kernel" (error)
  std::vector<EditAssessment> edits;
  std::vector<FileRadius> radius;  // one per planned CUDA/C++ file
  std::vector<std::string> notes;  // what could not be checked, in plain words

  // Whether apply must refuse without --allow-hazard: any finding of severity error.
  bool Refuses() const;
  // The blast radius to record for `file` of `rule`: null for a file that is not CUDA/C++.
  nlohmann::json RadiusOf(const plan::RulePlan& rule, const plan::FilePlan& file) const;
};

// Every planned file's bytes come from `staged` (each rule's own before and after); the CUDA
// sources a Python edit reaches are read through `snapshot`, as they will be after the plan.
PlanAssessment AssessPlan(const StagedPlan& staged, Snapshot& snapshot, const cuda::MacroEnv& env = {});

nlohmann::ordered_json ToJson(const PlanAssessment& a);

// Lines for people (dry run and refusals): one per edit with its blast radius and verdict, then
// one paragraph per finding.
std::vector<std::string> DescribeAssessment(const PlanAssessment& a);

// The compiler proof of every CUDA/C++ file of the plan (proof.h), on the bytes before and after
// the edits, in memory: run it before writing anything and a failed proof changes nothing.
struct PlanProof {
  std::vector<hazard::FileProof> files;
  std::vector<std::string> skipped;  // files not proven (not CUDA/C++), in plain words
  bool ok() const;
};
Result<PlanProof> ProvePlan(const StagedPlan& staged, const hazard::ProofOptions& options = {});

nlohmann::ordered_json ToJson(const PlanProof& proof);

// "proof: pkg/x.cuh: proven with nvcc: ..." lines for people.
std::vector<std::string> DescribeProof(const PlanProof& proof);

}  // namespace archpatch::apply
