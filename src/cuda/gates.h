// All arch gates of one CUDA/C++ file as Findings: #if chains (form gate::DirectiveForm),
// <nv/target> macros (gate::NvTargetForm) and runtime capability checks in host code
// (kind cpp-runtime-gate, gate::RuntimeForm). src/scan calls this; it knows nothing of trees or target arches.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "arch/arch.h"
#include "cuda/macro_env.h"
#include "cuda/tokens.h"
#include "gate/finding.h"
#include "util/result.h"
#include "util/shared_loops.h"

namespace archpatch::cuda {

struct DirectiveScan;   // cuda/directives.h
struct BranchVerdicts;  // cuda/directives.h
struct AllFunctions;    // cuda/functions.h

// Whether the caller wants a #if branch's finding, asked before it is located in the file: the
// draft has place, span, text, verdicts, form and chain; scope, block and exclusion are not filled.
using DraftFilter = std::function<bool(const Finding& draft)>;

// Which analyses to run; the byte prefilter (src/scan/prefilter.h) turns off what cannot match.
struct GateKinds {
  bool directives = true;  // #if chains
  bool nv_target = true;   // NV_IF_TARGET, NV_IF_ELSE_TARGET, NV_DISPATCH_TARGET
  bool runtime = true;     // cpp-runtime-gate (the token pass over every body: the costly one)
  DraftFilter wanted;      // #if branches: empty keeps every one (the audit keeps exclusions only)
  // The caller asks only whether `wanted` keeps a branch (CudaGates::wanted_any): drafting stops
  // at the first one and completes none; with `wanted` empty, no branch is drafted. The audit's
  // first read asks that (its package-macro rounds ask for definitions alone, below): on CUTLASS's
  // 2.8 MB headers, drafting their 737 branches was a fifth of the first read's work.
  bool only_whether_wanted = false;
  // The caller needs the file's directives and #defines alone: only the branches that decide
  // where a #define takes effect are evaluated (as DefinitionsOf does), no branch is drafted and
  // no warning read. The audit's package-macro rounds, and its first read of a file lexed ahead,
  // whose branches the findings round evaluates in any case (CUTLASS's 2.8 MB headers name
  // package macros): evaluating all 737 of their branches held the first read's end on 16 cores.
  bool definitions_only = false;
  // The file's directives as an earlier scan of the same bytes read them (they do not depend on
  // the macro environment): taken instead of reading them from the tokens again.
  std::shared_ptr<const DirectiveScan> read;
  // The file's functions as an earlier pass found them in the same tokens (scan/lex_ahead.h):
  // taken instead of finding them again.
  std::shared_ptr<const AllFunctions> functions;
  // Where a file of many #if branches offers their drafting, what their blocks hold and their
  // completion to idle threads (the audit's findings round: util/shared_loops.h); nullptr: none.
  SharedLoops* loops = nullptr;
};

// A #define of the file, with where it takes effect: per arch of the scan, the effective verdict
// of the branch it sits in (true everywhere at file level).
struct MacroDefinition {
  std::string name;
  std::vector<Tri> where;
};

struct CudaGates {
  std::vector<Finding> findings;             // sorted by position
  std::vector<Error> warnings;               // malformed conditions, unbalanced directives
  std::vector<MacroDefinition> definitions;  // every #define, in file order (package macros)
  bool wanted_any = false;                   // kinds.only_whether_wanted: `wanted` kept a branch
  // The file's directives as read (kinds.directives): they do not depend on the macro
  // environment, so a later round can evaluate them again without the file (DefinitionsOf).
  std::shared_ptr<const DirectiveScan> directives;
  // Their verdicts over `arches` in the file's environment (less its own #defines), for a pass
  // over the same file (the hazard checks).
  std::shared_ptr<const BranchVerdicts> verdicts;
  // What the scan built of the file that a later pass over it needs again (the hazard checks),
  // so that pass does not build it a second time: the line index (kinds.directives or
  // kinds.nv_target) and the functions, found at the first #if gate the caller wanted.
  std::optional<LineIndex> lines;
  std::shared_ptr<const AllFunctions> functions;
};

Result<CudaGates> ScanCudaGates(const std::string& file, std::string_view contents,
                                const std::vector<arch::Arch>& arches, const MacroEnv& env,
                                const GateKinds& kinds = {});

// The same from the file's tokens (Lexer::Tokenize), for a caller that keeps them for a later pass.
Result<CudaGates> ScanCudaGates(const std::string& file, std::string_view contents, const std::vector<Token>& tokens,
                                const std::vector<arch::Arch>& arches, const MacroEnv& env,
                                const GateKinds& kinds = {});

// The definitions of a file's directives under another environment: what ScanCudaGates gives in
// `definitions` for the file.
std::vector<MacroDefinition> DefinitionsOf(const DirectiveScan& scan, const std::vector<arch::Arch>& arches,
                                           const MacroEnv& env, const std::string& file);

// The package's per-arch macros less those this file #defines itself: its own definitions and the
// guards around them (`#if !defined(X) ... #define X`) read as the file says, not as the package's
// outcome of them. The environment ScanCudaGates evaluates a file's #if chains in.
MacroEnv WithoutOwnMacros(const MacroEnv& env, const DirectiveScan& scan);

// Per-arch values as verdicts, in `arches` order.
gate::Verdicts Verdicts(const std::vector<arch::Arch>& arches, const std::vector<Tri>& values);

}  // namespace archpatch::cuda
