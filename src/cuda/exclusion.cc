#include "cuda/exclusion.h"

#include <algorithm>
#include <array>
#include <fmt/format.h>

namespace archpatch::cuda {
namespace {

// A refusal is short: the block of `#else CUTE_INVALID_CONTROL_PATH("..."); #endif` or of
// `printf("ERROR : ... Aborting.\n");`, not a kernel body that throws somewhere.
constexpr size_t kRefusalMaxTokens = 80;

bool StartsLine(std::string_view contents, size_t offset) {
  while (offset > 0) {
    char c = contents[offset - 1];
    if (c == '\n') return true;
    if (c != ' ' && c != '\t') return false;
    --offset;
  }
  return true;
}

// The end of the logical line that holds `offset` (continuations followed), newline excluded.
size_t LogicalLineEnd(std::string_view contents, size_t offset) {
  size_t at = offset;
  while (at < contents.size()) {
    size_t nl = contents.find('\n', at);
    if (nl == std::string_view::npos) return contents.size();
    size_t before = nl;
    if (before > 0 && contents[before - 1] == '\r') --before;
    if (before == 0 || contents[before - 1] != '\\') return nl;
    at = nl + 1;
  }
  return contents.size();
}

// Whether `offset` lies on a preprocessor line: its logical line starts with '#'.
bool OnDirectiveLine(std::string_view contents, size_t offset) {
  size_t start = contents.rfind('\n', offset == 0 ? 0 : offset - 1);
  start = start == std::string_view::npos ? 0 : start + 1;
  // Walk back over continued lines (a previous line ending in a backslash).
  while (start >= 2 && contents[start - 2] == '\\') {
    size_t prev = contents.rfind('\n', start - 2 == 0 ? 0 : start - 3);
    start = prev == std::string_view::npos ? 0 : prev + 1;
  }
  while (start < offset && (contents[start] == ' ' || contents[start] == '\t')) ++start;
  return start < contents.size() && contents[start] == '#';
}

bool Contains(std::string_view text, std::string_view word) { return text.find(word) != std::string_view::npos; }

// A string literal that says the program stops here ("ERROR : ... Aborting.", "trap;").
bool RefusingLiteral(std::string_view literal) {
  for (std::string_view w : {"ERROR", "Error:", "error:", "Abort", "not supported", "unsupported", "trap;"}) {
    if (Contains(literal, w)) return true;
  }
  return false;
}

bool RefusingIdentifier(std::string_view id) {
  static constexpr std::array<std::string_view, 12> kNames = {"__trap",
                                                              "__builtin_trap",
                                                              "abort",
                                                              "CUTE_INVALID_CONTROL_PATH",
                                                              "CUTLASS_NOT_IMPLEMENTED",
                                                              "__brkpt",
                                                              "throw",
                                                              "FLASHINFER_ERROR",
                                                              "TORCH_CHECK_NOT_IMPLEMENTED",
                                                              "__builtin_unreachable",
                                                              "CUTE_GCC_UNREACHABLE",
                                                              "NVTE_ERROR"};
  return std::find(kNames.begin(), kNames.end(), id) != kNames.end();
}

// static_assert(false, ...), static_assert(0, ...), static_assert(dependent_false<T>, ...).
bool FalseAssertion(const std::vector<Token>& tokens, size_t i, std::string_view contents) {
  std::string_view name = tokens[i].Spelling(contents);
  if (name != "static_assert" && name != "assert") return false;
  if (i + 2 >= tokens.size() || tokens[i + 1].Spelling(contents) != "(") return false;
  std::string_view arg = tokens[i + 2].Spelling(contents);
  return arg == "false" || arg == "0" || Contains(arg, "false");
}

struct BlockTally {
  size_t code_tokens = 0;
  bool defines = false;
  bool error_directive = false;
  bool refusal_marker = false;
};

// From the '(' at `open`, the index of its matching ')' (or the last token); counts what it skips.
size_t SkipParenthesised(const std::vector<Token>& tokens, size_t open, std::string_view contents, BlockTally& t) {
  if (open >= tokens.size() || tokens[open].Spelling(contents) != "(") return open - 1;
  int depth = 0;
  for (size_t i = open; i < tokens.size(); ++i) {
    std::string_view s = tokens[i].Spelling(contents);
    if (tokens[i].kind != Token::Kind::kComment) ++t.code_tokens;
    if (s == "(") ++depth;
    if (s == ")" && --depth == 0) return i;
  }
  return tokens.size() - 1;
}

void TallyDirective(const std::vector<Token>& tokens, size_t hash, std::string_view contents, BlockTally& t) {
  if (hash + 1 >= tokens.size()) return;
  std::string_view word = tokens[hash + 1].Spelling(contents);
  if (word == "define") t.defines = true;
  if (word == "error") t.error_directive = true;
}

void TallyCode(const std::vector<Token>& tokens, size_t i, std::string_view contents, BlockTally& t) {
  ++t.code_tokens;
  const Token& tok = tokens[i];
  if (tok.kind == Token::Kind::kLiteral && RefusingLiteral(tok.Spelling(contents))) t.refusal_marker = true;
  if (tok.kind != Token::Kind::kLiteral && RefusingIdentifier(tok.Spelling(contents))) t.refusal_marker = true;
  if (FalseAssertion(tokens, i, contents)) t.refusal_marker = true;
}

bool OlderThan(const arch::Arch& a, const arch::Arch& target) { return a.number() < target.number(); }

std::string Where(const DirectiveScan& scan, int branch) {
  if (branch < 0) return "no branch";
  const DirectiveBranch& b = scan.branches[branch];
  return fmt::format("the #{} at line {}", DirectiveName(b.kind), b.line);
}

}  // namespace

BlockHolds WhatBlockHolds(const std::vector<Token>& tokens, std::string_view contents, ByteSpan block) {
  BlockTally tally;
  size_t directive_end = 0;
  auto first = std::lower_bound(tokens.begin(), tokens.end(), block.begin,
                                [](const Token& t, size_t offset) { return t.begin < offset; });
  for (size_t i = static_cast<size_t>(first - tokens.begin()); i < tokens.size() && tokens[i].begin < block.end; ++i) {
    const Token& tok = tokens[i];
    if (tok.kind == Token::Kind::kComment) continue;
    if (tok.begin < directive_end) continue;
    if (tok.Spelling(contents) == "#" && StartsLine(contents, tok.begin)) {
      directive_end = LogicalLineEnd(contents, tok.begin);
      TallyDirective(tokens, i, contents, tally);
      continue;
    }
    TallyCode(tokens, i, contents, tally);
    // A static_assert with a real condition stops nothing: its message ("Size is not supported")
    // is no refusal. Its tokens still count as code.
    if (tok.Spelling(contents) == "static_assert") i = SkipParenthesised(tokens, i + 1, contents, tally);
    // Past kRefusalMaxTokens of code the block is code, whatever follows: a block around a whole
    // file (an include guard, CUTLASS's feature-macro blocks) is not read to its end, once for
    // each block nested in it.
    if (tally.code_tokens > kRefusalMaxTokens) return BlockHolds::kCode;
  }
  const bool short_block = tally.code_tokens <= kRefusalMaxTokens;
  if (short_block && (tally.error_directive || tally.refusal_marker)) return BlockHolds::kRefusal;
  if (tally.code_tokens > 0) return BlockHolds::kCode;
  if (tally.defines) return BlockHolds::kDefines;
  return BlockHolds::kNothing;
}

std::vector<BlockHolds> AllBlockHolds(const DirectiveScan& scan, const std::vector<Token>& tokens,
                                      std::string_view contents, SharedLoops* loops) {
  constexpr size_t kBranchesPerPart = 64;
  std::vector<BlockHolds> out(scan.branches.size());
  InParts(loops, out.size(), kBranchesPerPart, [&](size_t begin, size_t end) {
    for (size_t b = begin; b < end; ++b) out[b] = WhatBlockHolds(tokens, contents, scan.branches[b].block);
  });
  return out;
}

TakenBranch BranchTaken(const DirectiveScan& scan, const BranchVerdicts& verdicts, const std::vector<BlockHolds>& holds,
                        int chain_member, size_t arch_index) {
  TakenBranch taken;
  const int chain = scan.branches[chain_member].chain;
  int head = chain_member;
  while (scan.branches[head].previous >= 0) head = scan.branches[head].previous;
  for (size_t b = static_cast<size_t>(head); b < scan.branches.size(); ++b) {
    if (scan.branches[b].chain != chain) continue;
    Tri own = verdicts.own[b][arch_index];
    if (own == Tri::kUnknown) taken.certain = false;
    if (own == Tri::kTrue) {
      taken.branch = static_cast<int>(b);
      taken.holds = holds[b];
      return taken;
    }
  }
  return taken;
}

bool ChainFillsItsBraces(const DirectiveScan& scan, int branch, const std::vector<Token>& tokens,
                         std::string_view contents) {
  const int chain = scan.branches[branch].chain;
  int head = branch;
  while (scan.branches[head].previous >= 0) head = scan.branches[head].previous;
  size_t end = scan.branches[branch].block.end;
  for (size_t b = static_cast<size_t>(head); b < scan.branches.size(); ++b) {
    if (scan.branches[b].chain == chain) end = std::max(end, scan.branches[b].block.end);
  }
  const size_t begin = scan.branches[head].directive_span.begin;
  const size_t after = LogicalLineEnd(contents, end);  // past the #endif line
  auto is_code = [&](const Token& t) { return t.kind != Token::Kind::kComment && !OnDirectiveLine(contents, t.begin); };
  auto at = [&](size_t offset) {
    return std::lower_bound(tokens.begin(), tokens.end(), offset, [](const Token& t, size_t o) { return t.begin < o; });
  };
  std::string_view before_tok, after_tok;
  for (auto it = at(begin); it != tokens.begin();) {
    --it;
    if (is_code(*it)) {
      before_tok = it->Spelling(contents);
      break;
    }
  }
  for (auto it = at(after); it != tokens.end(); ++it) {
    if (is_code(*it)) {
      after_tok = it->Spelling(contents);
      break;
    }
  }
  return before_tok == "{" && after_tok == "}";
}

Exclusion ClassifyExclusion(const DirectiveScan& scan, const BranchVerdicts& verdicts,
                            const std::vector<BlockHolds>& holds, int branch, const std::vector<arch::Arch>& arches,
                            size_t target, bool chain_is_whole_body) {
  Exclusion out;
  out.target = BranchTaken(scan, verdicts, holds, branch, target);
  const arch::Arch& me = arches[target];
  std::vector<arch::Arch> others;  // the arches that take this branch (or may)
  for (size_t a = 0; a < arches.size(); ++a) {
    if (a != target && verdicts.effective[branch][a] != Tri::kFalse) others.push_back(arches[a]);
  }
  const BlockHolds mine = holds[branch];
  const std::string taken = Where(scan, out.target.branch);
  if (mine == BlockHolds::kRefusal || mine == BlockHolds::kNothing) {
    out.klass = ExclusionClass::kOtherArch;
    out.reason = fmt::format("this branch holds {}: {} avoids it", BlockHoldsName(mine), me.name());
    return out;
  }
  if (out.target.holds == BlockHolds::kRefusal) {
    out.klass = ExclusionClass::kRefusal;
    out.reason = fmt::format("{} takes {}, which refuses", me.name(), taken);
    return out;
  }
  const bool target_has_code = out.target.holds == BlockHolds::kCode;
  // A fallback for older arches reaches down to the oldest arch compared (`< 800`, `< 1000`); a
  // range with a floor (`>= 900 && < 1200`) is a feature window that leaves the target out.
  int oldest = me.number();
  for (size_t a = 0; a < arches.size(); ++a) {
    if (a != target) oldest = std::min(oldest, arches[a].number());
  }
  const bool older = !others.empty() &&
                     std::all_of(others.begin(), others.end(), [&](const arch::Arch& a) { return OlderThan(a, me); });
  const bool from_oldest =
      std::any_of(others.begin(), others.end(), [&](const arch::Arch& a) { return a.number() == oldest; });
  // Part of a function: with no branch of its own, the target still runs the code around the chain.
  const bool runs_around = out.target.branch < 0 && !chain_is_whole_body && mine == BlockHolds::kCode;
  // With a branch of its own the target is past an older arch's path (a per-arch dispatch
  // `>= 800 && < 890 ... #elif >= 900`); without one, only a floorless fallback leaves it nothing lost.
  // A target taking a conditioned branch of its own (`#elif >= 900`) gets a specialised path: the
  // older arches' branch is theirs. Taking the #else, it is a fallback only when it has no floor.
  const bool own_branch = out.target.branch >= 0 && scan.branches[out.target.branch].kind != DirectiveKind::kElse;
  if (older && ((target_has_code && (own_branch || from_oldest)) || (runs_around && from_oldest))) {
    out.klass = ExclusionClass::kLegacy;
    out.reason =
        runs_around ? fmt::format("only arches older than {} take it; {} runs the code around it", me.name(), me.name())
                    : fmt::format("only arches older than {} take it; {} takes {}", me.name(), me.name(), taken);
    return out;
  }
  const bool one_other = !others.empty() && std::all_of(others.begin(), others.end(), [&](const arch::Arch& a) {
    return a.number() == others.front().number() && a.number() != me.number();
  });
  if (one_other) {
    out.klass = ExclusionClass::kOtherArch;
    out.reason = fmt::format("a path for sm_{} alone", others.front().number());
    return out;
  }
  if (target_has_code || runs_around) {
    out.klass = ExclusionClass::kFastPath;
    out.reason = runs_around ? fmt::format("{} skips this step and runs the code around it", me.name())
                             : fmt::format("{} takes {}, a generic path", me.name(), taken);
  } else {
    out.klass = ExclusionClass::kEmpty;
    out.reason = out.target.branch < 0 ? fmt::format("{} gets nothing in its place", me.name())
                                       : fmt::format("{} takes {}, which is empty", me.name(), taken);
  }
  return out;
}

}  // namespace archpatch::cuda
