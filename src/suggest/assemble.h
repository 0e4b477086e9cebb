// One distribution's accepted root causes -> one drafted, checked rule with its fixture, or the
// refusals of those that could not be drafted. Internal to src/suggest (suggest.cc calls it).
#pragma once

#include <string>
#include <vector>

#include "arch/arch.h"
#include "env/environment.h"
#include "store/caches.h"
#include "suggest/candidate.h"
#include "suggest/owner.h"
#include "suggest/suggest.h"

namespace archpatch::suggest {

struct Accepted {
  Candidate candidate;
  Owned owner;  // owner.distribution is set
};

struct DraftOutcome {
  std::optional<SuggestedRule> rule;  // empty when every root cause was refused
  std::vector<Refusal> refused;
};

// `accepted`: root causes of one distribution. `kinds`: the cache kinds (rules/caches.yaml).
DraftOutcome DraftRule(const env::Environment& env, const std::vector<Accepted>& accepted, const arch::Arch& target,
                       const std::vector<store::CacheKind>& kinds);

// The `where` of a refusal: relative to site-packages when owned, else as the audit reports it.
std::string WhereOf(const Candidate& c, const Owned& owner);

}  // namespace archpatch::suggest
