// The hazard checks of one CUDA/C++ file for a target arch, as `archpatch audit` runs them:
// kernels that compile to an empty body on the target (finding kind "empty-kernel", severity
// error), and for every gate that keeps code off the target, whether widening it would be safe
// (widen-safe / widen-unsafe / unknown, with the instructions and arches behind the answer).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "arch/arch.h"
#include "cuda/directives.h"
#include "cuda/macro_env.h"
#include "hazard/classify.h"
#include "hazard/features.h"
#include "gate/finding.h"
#include "hazard/source.h"
#include "util/shared_loops.h"
#include "util/result.h"

namespace archpatch::hazard {

struct CheckOptions {
  arch::Arch target;
  std::vector<arch::Arch> arches = arch::AllArches();
  cuda::MacroEnv env;
  const FeatureTable* features = nullptr;  // nullptr: DefaultFeatures()
  // The file's directives and their verdicts over `arches` in `env`, when the caller has them
  // (the audit's gate scan): the branches are taken from them, and `env` is not read.
  const cuda::DirectiveScan* directives = nullptr;
  const cuda::BranchVerdicts* verdicts = nullptr;
  // Where the gates' classification may be shared with idle threads (the audit's round: a file
  // of hundreds of gates); nullptr: all on the calling thread.
  SharedLoops* loops = nullptr;
};

// A gate (one #if/#elif/#else branch) that is false on the target and true or unknown on another
// arch, with what widening it would mean.
struct GateHazard {
  int line = 0, column = 0;  // of the '#'
  std::string directive;     // "if", "elif", ...
  std::string condition;     // as written
  ByteSpan condition_span;
  ByteSpan block;  // the guarded bytes
  int first_line = 0, last_line = 0;
  std::vector<Tri> verdict;  // effective, per arch of CheckOptions::arches
  Classification widen;
};

struct FileHazards {
  std::vector<Finding> empty_kernels;  // kind "empty-kernel"
  std::vector<GateHazard> gates;
};

// Runs both checks. Errors only when libclang cannot read the file at all.
Result<FileHazards> CheckFile(const std::string& path, std::string_view contents, const CheckOptions& options);

// The same on a file already lexed (FromTokens over the scan's tokens: the audit lexes once).
Result<FileHazards> CheckSource(const std::string& path, const ParsedSource& source, const CheckOptions& options);

// Adds the widen verdict (Finding::widen, with its reason) to the cuda-gate findings of the same
// file, matched by the condition's byte span.
void AnnotateGateFindings(std::vector<Finding>& findings, const FileHazards& hazards, const arch::Arch& target);

// A classification as the gate model holds it (its JSON: docs/hazards.md); no reason sentence.
gate::WidenHazard WidenOf(const Classification& c, const arch::Arch& target);

// Plain-words lines (no trailing newline) that follow a finding's summary: for an empty kernel,
// where it has a real body, which gates switch it off and what to do; for an annotated cuda-gate,
// its widen sentence. Empty for other findings.
std::vector<std::string> ExplainLines(const Finding& finding);

// "On sm_120 this gate cannot simply be widened: ..." one sentence for a classification.
std::string WidenSentence(const Classification& c, const arch::Arch& target);

}  // namespace archpatch::hazard
