#include "hazard/branches.h"

#include "cuda/directives.h"

namespace archpatch::hazard {
namespace {

// Whether the bytes [from, to) hold a newline that ends a logical line (not after a backslash).
bool HasLineEnd(std::string_view contents, size_t from, size_t to) {
  for (size_t i = from; i < to && i < contents.size(); ++i) {
    if (contents[i] != '\n') continue;
    size_t j = i;
    if (j > 0 && contents[j - 1] == '\r') --j;
    if (j == 0 || contents[j - 1] != '\\') return true;
  }
  return false;
}

// The end of the logical line that holds `from`: the offset of its terminating '\n' (or the end).
size_t LogicalLineEnd(std::string_view contents, size_t from) {
  for (size_t i = from; i < contents.size(); ++i) {
    if (contents[i] != '\n') continue;
    size_t j = i;
    if (j > 0 && contents[j - 1] == '\r') --j;
    if (j == 0 || contents[j - 1] != '\\') return i;
  }
  return contents.size();
}

bool StartsLine(std::string_view contents, const std::vector<Token>& tokens, size_t i) {
  if (i == 0) return true;
  return HasLineEnd(contents, tokens[i - 1].end, tokens[i].begin);
}

}  // namespace

std::vector<Branch> FindBranches(std::string_view contents, const std::vector<Token>& tokens,
                                 const std::vector<arch::Arch>& arches, const cuda::MacroEnv& env) {
  // cuda/directives does the chains and the per-arch evaluation (in-file #defines included);
  // this keeps only what the hazard checks ask of a branch.
  std::vector<cuda::Token> lexed;
  lexed.reserve(tokens.size());
  for (const Token& t : tokens) {
    lexed.push_back({static_cast<cuda::Token::Kind>(t.kind), t.begin, t.end});
  }
  const cuda::DirectiveScan scan = cuda::ReadDirectives(lexed, contents, "");
  const cuda::BranchVerdicts verdicts = cuda::EvaluateBranches(scan, arches, env, "");
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

std::vector<Tri> SurvivesAt(const std::vector<Branch>& branches, size_t offset, size_t arch_count) {
  const Branch* innermost = nullptr;
  for (const Branch& b : branches) {
    if (offset >= b.body_begin && offset < b.body_end) {
      if (!innermost || b.body_begin >= innermost->body_begin) innermost = &b;
    }
  }
  if (!innermost) return std::vector<Tri>(arch_count, Tri::kTrue);
  return innermost->verdict;
}

bool IsDirectiveByte(std::string_view contents, const std::vector<Token>& tokens, size_t offset) {
  // The directive that could hold `offset` starts at the last line-initial '#' before it.
  for (size_t i = tokens.size(); i-- > 0;) {
    if (tokens[i].begin > offset) continue;
    if (tokens[i].spelling == "#" && StartsLine(contents, tokens, i)) {
      return offset <= LogicalLineEnd(contents, tokens[i].end);
    }
    if (StartsLine(contents, tokens, i)) return false;
  }
  return false;
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
    const bool line_start =
        i == 0 || contents.substr(tokens[i - 1].end, tokens[i].begin - tokens[i - 1].end).find('\n') !=
                      std::string_view::npos;
    if (tokens[i].spelling == "#" && line_start) {
      // The logical line ends at the first newline not escaped by a backslash.
      size_t j = tokens[i].end;
      while (j < contents.size()) {
        if (contents[j] == '\n' && !(j > 0 && (contents[j - 1] == '\\' ||
                                               (contents[j - 1] == '\r' && j > 1 && contents[j - 2] == '\\')))) {
          break;
        }
        ++j;
      }
      directive_end = j;
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
