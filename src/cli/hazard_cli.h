// The hazard side of `apply` and `verify` (src/hazard, docs/hazards.md), kept out of the two
// commands so each needs only a call or two: the blast radius and hazard findings before apply
// writes anything, the refusal without --allow-hazard, the compiler proof (--verify), and
// `archpatch verify --proof`.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "cli/options.h"
#include "plan/edit_plan.h"

namespace archpatch::cli {

// --verify and --proof-engine (apply already has --allow-hazard and --force).
void AddApplyHazardOptions(po::options_description& desc);

struct PlanHazards {
  std::vector<std::string> lines;  // for people: blast radius per edit, hazards, proof
  nlohmann::ordered_json json;     // {"hazards": ..., "proof": ...} (docs/hazards.md)
};

// Runs the checks on a plan before anything is written. A hazard of severity error without
// --allow-hazard/--force, or a failed proof with --verify, throws Fatal (exit 3) saying nothing
// was changed; `dry_run` only reports.
PlanHazards CheckPlanHazards(const plan::EditPlan& plan, const po::variables_map& vars, bool dry_run);

// `archpatch verify --proof [--rule ID]... [env options] [--proof-engine E] [--json]`: proves the
// CUDA edits of applied rules (their backups against the files now), or of rules not yet
// applied (their plan). Exit 0 proven, 1 nothing to prove, 3 a proof failed.
int RunVerifyProof(const Context& ctx, const std::vector<std::string>& args);

// Whether `args` ask verify for the proof (`--proof`).
bool WantsProof(const std::vector<std::string>& args);

}  // namespace archpatch::cli
