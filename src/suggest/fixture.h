// The fixture of a drafted rule (rules/README.md): each edited file cut down to the lines around
// its gates (slice.h), under the installed path, beside a dist-info with the installed name and
// version; and the check of a whole draft in a scratch folder (rule loader, `rules test`, the plan
// on the installed files) before suggest reports it.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "arch/arch.h"
#include "env/environment.h"
#include "suggest/edits.h"
#include "suggest/suggest.h"
#include "util/result.h"

namespace archpatch::suggest {

// before/ of the fixture (after is left empty: CheckDraft fills it from the plan). `contents`:
// the installed bytes of every file the edits name.
std::vector<FixtureFile> SliceFixture(const std::vector<ChosenEdit>& edits,
                                      const std::map<std::string, std::string>& contents, const env::Distribution& dist,
                                      const arch::Arch& target);

// Writes the draft to a scratch folder (removed afterwards), loads it with rules::LoadRuleFile,
// plans it against before/ to make after/, runs plan::TestRuleFixture, and plans it against
// `env` (the installed files: every `expect` must hold). Fills each fixture file's `after`.
Status CheckDraft(SuggestedRule& draft, const env::Environment& env);

}  // namespace archpatch::suggest
