// Branches: every `#if/#ifdef/#ifndef/#elif/#else` branch of a file with the bytes it guards and
// its effective verdict per arch (the earlier branches of its chain negated, the enclosing
// branches and-ed in), found from libclang's tokens so comments and strings never fool it.
// The hazard checks ask: which code survives preprocessing for this arch?
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "arch/arch.h"
#include "cuda/directives.h"
#include "cuda/macro_env.h"
#include "hazard/source.h"
#include "util/tri.h"

namespace archpatch::hazard {

struct Branch {
  std::string directive;                          // "if", "ifdef", "ifndef", "elif", "else"
  std::string condition;                          // as written ("" for #else); #ifdef X reads "defined X"
  size_t directive_begin = 0;                     // the '#'
  size_t condition_begin = 0, condition_end = 0;  // bytes of the condition as written
  size_t body_begin = 0, body_end = 0;            // from after the directive line to the next #elif/#else/#endif
  int line = 0, column = 0;                       // of the '#'
  int parent = -1;                                // index of the enclosing branch, -1 at file level
  int chain = 0;                                  // shared by the branches of one #if ... #endif
  std::vector<Tri> verdict;                       // effective, per arch of the table passed to FindBranches
};

// Finds the branches of `contents` (whose tokens are `tokens`) and evaluates each for every arch
// in `arches` under `env`. A condition that does not parse evaluates to unknown.
std::vector<Branch> FindBranches(std::string_view contents, const std::vector<Token>& tokens,
                                 const std::vector<arch::Arch>& arches, const cuda::MacroEnv& env);
// The same from a file's directives already read and evaluated over the same arches (the audit's
// gate scan has both: reading them again was 1.6% of an audit).
std::vector<Branch> BranchesOf(const cuda::DirectiveScan& scan, const cuda::BranchVerdicts& verdicts);

// The innermost branch whose body holds byte `offset`, or -1 at file level. `branches` as
// FindBranches returns them (file order, parents set). O(log branches + nesting depth).
int InnermostBranch(const std::vector<Branch>& branches, size_t offset);

// Per arch, whether byte `offset` survives preprocessing: the effective verdict of the innermost
// branch whose body holds it (true at file level).
std::vector<Tri> SurvivesAt(const std::vector<Branch>& branches, size_t offset, size_t arch_count);

// Per token: whether it sits on a preprocessor directive line (continuations included).
std::vector<bool> DirectiveTokens(std::string_view contents, const std::vector<Token>& tokens);

// The innermost branch whose condition bytes contain [begin, end), or -1.
int BranchOfCondition(const std::vector<Branch>& branches, size_t begin, size_t end);

}  // namespace archpatch::hazard
