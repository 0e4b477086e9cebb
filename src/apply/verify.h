// Verify: installed files against their distribution's RECORD (in the spirit of
// `dpkg --verify`), files archpatch patched reported as "patched" with their rule; and the
// compiler proof of applied rules (each file's backup against its patched bytes, at the byte
// spans the manifest records) or of rules not applied yet (their plan). Both read under the
// shared lock (apply/lock.h).
#pragma once

#include <string>
#include <vector>

#include "apply/assess.h"
#include "apply/lock.h"
#include "env/environment.h"
#include "hazard/proof.h"
#include "store/disk.h"
#include "store/manifest.h"

namespace archpatch::apply {

struct RecordProblem {
  std::string path;
  std::string state;  // env::FileStateName, or "patched" (as archpatch left it)
  std::string rule;   // the rule that patched it ("" unless "patched")
};

struct DistributionCheck {
  std::string name, version;
  size_t files = 0;  // rows in RECORD
  std::vector<RecordProblem> problems;
};

struct VerifyReport {
  std::vector<DistributionCheck> distributions;
  bool drift = false;  // a problem other than "patched"
};

VerifyReport VerifyRecords(store::Disk& disk, Locker& locker, const env::Environment& env,
                           const std::vector<const env::Distribution*>& distributions);

// The byte spans of `original` the edits replaced: recorded ones, or for a manifest written
// before spans were recorded, `before` searched for from the start of its line.
std::vector<ByteSpan> EditedSpans(const std::string& original, const std::vector<store::EditRecord>& edits);

// Proves the applied rules named in `wanted` (all of them when empty) and plans and proves the
// ones not applied yet. Errors of planning or of the proof engine throw Fatal; a rule file that
// does not load is a UsageError.
PlanProof ProveRules(store::Disk& disk, Locker& locker, const env::Environment& env,
                     const std::vector<std::string>& wanted, const hazard::ProofOptions& options);

}  // namespace archpatch::apply
