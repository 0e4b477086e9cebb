// `archpatch suggest` as a library call (docs/suggest.md): audit an environment for one arch, keep
// the root causes that are widen-safe, and for each distribution owning some of them draft a rule
// (rules/<id>.yaml as docs/rules.md describes it) and its fixture (tests/<id>/before, after). Every
// other root cause is refused with its reason. Nothing is written here (output.h writes); a draft
// is checked first with the rule loader, the planner on the installed files and `rules test` on
// its fixture, in a scratch folder of its own.
#pragma once

#include <string>
#include <vector>

#include "arch/arch.h"
#include "env/environment.h"
#include "util/result.h"

namespace archpatch::suggest {

struct SuggestOptions {
  arch::Arch target;
  std::vector<std::string> groups;  // root-cause ids as `archpatch audit` numbers them ("G3"); empty: all
  bool allow_unknown = false;       // also draft root causes whose widen verdict is unknown
  bool fast_paths = false;          // also draft fast paths (the target runs a generic path there)
  int jobs = 0;                     // audit workers; 0: one per core
};

// A root cause suggest does not turn into an edit, and why.
struct Refusal {
  std::string group;   // "G1"
  std::string where;   // "minifi/jit/comm.py:10:9" (relative to site-packages when owned)
  std::string text;    // the gate as written
  std::string reason;  // one line
};

// A file of a rule's fixture: its path below before/ and after/, and the bytes of each.
struct FixtureFile {
  std::string path;
  std::string before;
  std::string after;
};

struct SuggestedRule {
  std::string id;
  std::string distribution;         // normalised
  std::string version;              // installed
  std::string yaml;                 // the rule file's bytes
  std::vector<std::string> groups;  // the root causes its edits widen
  size_t edits = 0;
  std::vector<FixtureFile> fixture;  // the dist-info's METADATA included
};

struct Suggestions {
  size_t root_causes = 0;            // root causes considered (those keeping the target out, or named)
  std::vector<SuggestedRule> rules;  // one per distribution, sorted by id
  std::vector<Refusal> refused;      // in group order
};

// Errors (exit 2): an unknown group id, a known-unsafe list that does not parse, an audit that
// cannot start.
Result<Suggestions> Suggest(const env::Environment& env, const SuggestOptions& options);

}  // namespace archpatch::suggest
