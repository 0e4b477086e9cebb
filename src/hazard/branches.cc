#include "hazard/branches.h"

#include <algorithm>

#include "cuda/directives.h"

namespace archpatch::hazard {
std::vector<Branch> FindBranches(std::string_view contents, const std::vector<Token>& tokens,
                                 const std::vector<arch::Arch>& arches, const cuda::MacroEnv& env) {
  // cuda/directives does the chains and the per-arch evaluation (in-file #defines included);
  // this keeps only what the hazard checks ask of a branch.
  const cuda::DirectiveScan scan = cuda::ReadDirectives(tokens, contents, "");
  return BranchesOf(scan, cuda::EvaluateBranches(scan, arches, env, ""));
}

std::vector<Branch> BranchesOf(const cuda::DirectiveScan& scan, const cuda::BranchVerdicts& verdicts) {
  std::vector<Branch> out;
  for (size_t i = 0; i < scan.branches.size(); ++i) {
    const cuda::DirectiveBranch& d = scan.branches[i];
    Branch b;
    b.directive = std::string(cuda::DirectiveName(d.kind));
    b.condition = d.condition;
    b.directive_begin = d.directive_span.begin;
    b.condition_begin = d.condition_span.begin;
    b.condition_end = d.condition_span.end;
    b.body_begin = d.block.begin;
    b.body_end = d.block.end;
    b.line = d.line;
    b.column = d.column;
    b.parent = d.parent;
    b.chain = d.chain;
    b.verdict = verdicts.effective[i];
    out.push_back(std::move(b));
  }
  return out;
}

int InnermostBranch(const std::vector<Branch>& branches, size_t offset) {
  // Bodies nest (a branch's directive lies in its parent's body) and start in file order. The
  // last body starting at or before `offset` is the innermost holding it, or nested in that one:
  // its parent chain leads there. O(log branches + nesting depth).
  auto after = std::upper_bound(branches.begin(), branches.end(), offset,
                                [](size_t at, const Branch& b) { return at < b.body_begin; });
  int i = static_cast<int>(after - branches.begin()) - 1;
  while (i >= 0 && !(offset >= branches[i].body_begin && offset < branches[i].body_end)) i = branches[i].parent;
  return i;
}

std::vector<Tri> SurvivesAt(const std::vector<Branch>& branches, size_t offset, size_t arch_count) {
  const int innermost = InnermostBranch(branches, offset);
  if (innermost < 0) return std::vector<Tri>(arch_count, Tri::kTrue);
  return branches[innermost].verdict;
}

std::vector<bool> DirectiveTokens(std::string_view contents, const std::vector<Token>& tokens) {
  std::vector<bool> mask(tokens.size(), false);
  size_t directive_end = 0;
  bool in_directive = false;
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (in_directive && tokens[i].begin < directive_end) {
      mask[i] = true;
      continue;
    }
    in_directive = false;
    // The spelling first: the gap before a token is looked at only for a '#' (that look, a
    // search per token, was most of this pass).
    if (tokens[i].end - tokens[i].begin != 1 || contents[tokens[i].begin] != '#') continue;
    const bool line_start =
        i == 0 ||
        contents.substr(tokens[i - 1].end, tokens[i].begin - tokens[i - 1].end).find('\n') != std::string_view::npos;
    if (line_start) {
      // The logical line ends at the first newline not escaped by a backslash.
      size_t j = contents.find('\n', tokens[i].end);
      for (; j != std::string_view::npos; j = contents.find('\n', j + 1)) {
        if (!(j > 0 && (contents[j - 1] == '\\' || (contents[j - 1] == '\r' && j > 1 && contents[j - 2] == '\\')))) {
          break;
        }
      }
      directive_end = j == std::string_view::npos ? contents.size() : j;
      in_directive = true;
      mask[i] = true;
    }
  }
  return mask;
}

int BranchOfCondition(const std::vector<Branch>& branches, size_t begin, size_t end) {
  int found = -1;
  for (size_t i = 0; i < branches.size(); ++i) {
    const Branch& b = branches[i];
    if (b.directive == "else") continue;
    if (begin >= b.directive_begin && end <= b.condition_end) found = static_cast<int>(i);
  }
  return found;
}

}  // namespace archpatch::hazard
