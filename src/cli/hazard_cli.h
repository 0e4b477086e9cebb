// The hazard options of `apply` and `archpatch verify --proof` (docs/hazards.md): parsing them
// and printing the proof; the checks themselves are apply::CheckPlan and apply::ProveRules.
#pragma once

#include <string>
#include <vector>

#include "cli/command.h"
#include "cli/options.h"
#include "hazard/proof.h"

namespace archpatch::cli {

// --verify and --proof-engine (apply already has --allow-hazard and --force).
void AddApplyHazardOptions(po::options_description& desc);
// --proof-engine; a bad name is a usage error.
hazard::ProofOptions ProofOptionsFrom(const po::variables_map& vars);

// `archpatch verify --proof [--rule ID]... [env options] [--proof-engine E] [--json]`: proves the
// CUDA edits of applied rules (their backups against the files now), or of rules not yet
// applied (their plan). Exit 0 proven, 1 nothing to prove, 3 a proof failed.
int RunVerifyProof(const Context& ctx, const std::vector<std::string>& args);

// Whether `args` ask verify for the proof (`--proof`).
bool WantsProof(const std::vector<std::string>& args);

}  // namespace archpatch::cli
