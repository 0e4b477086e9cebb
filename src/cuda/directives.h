// Preprocessor conditional chains (#if/#ifdef/#ifndef/#elif/#elifdef/#elifndef/#else/#endif)
// rebuilt from libclang's tokens of the whole file, so comments, string and raw-string literals
// and line continuations never fool it. Each branch knows its block (byte and line range), its
// enclosing branch and the earlier branches of its chain, which gives its effective condition:
// own condition AND NOT every earlier sibling AND the enclosing branch's effective condition.
// Also the #define/#undef directives, so that a macro defined only under an arch-dependent branch
// is evaluated per arch where a later condition tests it (CUTLASS's *_SM90_SUPPORTED style).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "arch/arch.h"
#include "cuda/macro_env.h"
#include "cuda/tokens.h"
#include "gate/finding.h"
#include "util/result.h"
#include "util/tri.h"

namespace archpatch::cuda {

// The directive kinds belong to the gate model (a Finding names its directive).
using gate::DirectiveKind;
using gate::DirectiveName;

struct DirectiveBranch {
  DirectiveKind kind = DirectiveKind::kIf;
  // The condition as written after the keyword: continuations folded, comments dropped, spaces
  // between tokens kept as one. #ifdef X / #ifndef X give "X"; #else gives "".
  std::string condition;
  ByteSpan condition_span;  // its raw bytes in the file (empty, at the keyword's end, for #else)
  ByteSpan directive_span;  // from '#' to the end of the logical line (newline excluded)
  int line = 0;             // of the '#'
  int column = 0;
  int condition_line = 0;  // of the condition's first byte (the keyword's for #else)
  int condition_column = 0;
  // The controlled block: from the line after the directive to the '#' of the chain's next
  // directive (#elif/#else/#endif). Lines are 1-based and inclusive; an empty block has
  // last_line < first_line.
  ByteSpan block;
  int first_line = 0;
  int last_line = 0;
  int parent = -1;         // index of the enclosing branch, -1 at file level
  int previous = -1;       // the chain's earlier branch (the #if for the first #elif), -1 for an #if
  int chain = 0;           // shared by every branch of one #if ... #endif
  bool terminated = true;  // false when the file ends before the chain's #endif
};

// A #define or #undef; `branch` is the innermost branch it sits in (-1 at file level).
struct MacroDirective {
  bool define = true;
  std::string name;
  std::string replacement;  // object-like replacement text; empty for #undef
  bool function_like = false;
  size_t offset = 0;  // of the '#'
  int branch = -1;
};

struct DirectiveScan {
  std::vector<DirectiveBranch> branches;  // in file order
  std::vector<MacroDirective> macros;     // in file order
  std::vector<Error> problems;            // unbalanced #else/#elif/#endif, unterminated chains
};

// Whether `text` (from a line's first `#` on) is an `#include` (or `#include_next`) directive: its
// names are a path, never a condition or a value, so the byte prefilter and the runtime scan skip
// them (`#include <cutlass/arch/mma.h>` names `arch`).
bool StartsIncludeDirective(std::string_view text);

// The tokens of the directives among `tokens` (each `#` that starts its logical line, comments
// before it counting as blanks, through the end of that line), in order: all ReadDirectives reads.
// ReadDirectives of these gives what it gives of the whole token list.
std::vector<Token> DirectiveLinesOf(const std::vector<Token>& tokens, std::string_view contents);

// Rebuilds the chains from the file's tokens (Lexer::Tokenize, or DirectiveLineTokens) and its bytes.
DirectiveScan ReadDirectives(const std::vector<Token>& tokens, std::string_view contents, const std::string& file);
// The same with the file's line index at hand (the gate scan builds one per file for every pass).
DirectiveScan ReadDirectives(const std::vector<Token>& tokens, std::string_view contents, const std::string& file,
                             const LineIndex& lines);

// The effective condition as text, for people and JSON:
// "(A) && !(B) && (C)" where B is an earlier branch of the chain and C the enclosing branch's.
std::string EffectiveConditionText(const DirectiveScan& scan, int branch);

// Every branch's own and effective verdict per arch (own[b][a], effective[b][a]), with macros
// #defined/#undefined earlier in the file applied per arch (a #define inside a branch takes effect
// on the arches where that branch is taken, and makes the macro unknown where the branch is
// unknown). A branch whose condition does not parse is unknown everywhere and is listed in
// `malformed` with the parser's message placed at file:line:col.
struct BranchVerdicts {
  std::vector<std::vector<Tri>> own;
  std::vector<std::vector<Tri>> effective;
  std::vector<bool> arch_dependent;  // own condition mentions an arch macro, directly or through
                                     // a macro this file defines under an arch-dependent branch
  std::vector<Error> malformed;
  std::vector<int> malformed_branches;
};
BranchVerdicts EvaluateBranches(const DirectiveScan& scan, const std::vector<arch::Arch>& arches, const MacroEnv& env,
                                const std::string& file);

// EvaluateBranches(scan, arches, WithoutOwnMacros(env, scan), file) (cuda/gates.h), without
// copying `env` for every file.
BranchVerdicts EvaluateOwnBranches(const DirectiveScan& scan, const std::vector<arch::Arch>& arches,
                                   const MacroEnv& env, const std::string& file);

// EvaluateOwnBranches for the verdicts of the branches that hold a #define or #undef alone (the
// package macros' rounds read nothing else): the other branches' verdicts are left unknown and
// their conditions unparsed (no malformed condition is reported for them).
BranchVerdicts EvaluateMacroBranches(const DirectiveScan& scan, const std::vector<arch::Arch>& arches,
                                     const MacroEnv& env, const std::string& file);

}  // namespace archpatch::cuda
