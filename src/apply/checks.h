// The checks between planning and writing (docs/hazards.md): the hazard assessment with its
// blast radius, the refusal policy, and the compiler proof (--verify), all on the snapshot's bytes.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "apply/assess.h"
#include "apply/snapshot.h"
#include "hazard/proof.h"

namespace archpatch::apply {

struct CheckOptions {
  bool allow_hazard = false;  // --allow-hazard or --force
  bool verify = false;        // --verify: run the compiler proof
  hazard::ProofOptions proof;
  bool dry_run = false;  // report only: neither a hazard nor a failed proof refuses
};

struct PlanChecks {
  PlanAssessment assessment;
  std::optional<PlanProof> proof;
  std::vector<std::string> lines;  // for people: blast radius per edit, hazards, proof
  nlohmann::ordered_json json;     // {"hazards": ..., "proof": ...} (docs/hazards.md)
};

// Throws Fatal (exit 3, "nothing was changed") for an edit of a gate on the known-unsafe list
// (always: apply/unsafe_edits.h), a hazard of severity error without allow_hazard (those of
// AssessPlan and the prebuilt-without-image ones of apply/prebuilt_edits.h), or a failed
// proof, the last two unless dry_run.
PlanChecks CheckPlan(const StagedPlan& staged, Snapshot& snapshot, const CheckOptions& options);

}  // namespace archpatch::apply
