#include "python/direction.h"

#include <algorithm>

namespace archpatch::python {
namespace {

bool IsOpenBracket(const TokenStream& ts, size_t i) {
  return ts.tokens[i].kind == TokenKind::kOp && (ts.Is(i, "(") || ts.Is(i, "[") || ts.Is(i, "{"));
}

}  // namespace

size_t StatementIndex::LineOf(size_t t) const {
  auto after =
      std::upper_bound(lines_.begin(), lines_.end(), t, [](size_t tok, const LogicalLine& l) { return tok < l.first; });
  if (after == lines_.begin()) return lines_.size();
  const size_t k = static_cast<size_t>(std::prev(after) - lines_.begin());
  return t < lines_[k].last ? k : lines_.size();
}

size_t StatementIndex::HeaderColon(size_t k) const {
  const LogicalLine& l = lines_[k];
  for (size_t i = l.first; i < l.last;) {
    if (IsOpenBracket(ts_, i) && ts_.match[i] < l.last) {
      i = ts_.match[i] + 1;
      continue;
    }
    if (ts_.Is(i, "lambda")) return std::string_view::npos;  // its ':' is no header's
    if (ts_.Is(i, ":")) return i;
    ++i;
  }
  return std::string_view::npos;
}

size_t StatementIndex::BlockEnd(size_t k) const {
  size_t j = k + 1;
  while (j < lines_.size() && lines_[j].depth > lines_[k].depth) ++j;
  return j;
}

bool StatementIndex::BlockReturns(size_t k) const {
  const size_t colon = HeaderColon(k);
  if (colon == std::string_view::npos) return false;
  if (colon + 1 < lines_[k].last) return ts_.Is(colon + 1, "return");
  size_t last_statement = lines_.size();
  for (size_t j = k + 1, end = BlockEnd(k); j < end; ++j) {
    if (lines_[j].depth == lines_[k].depth + 1) last_statement = j;
  }
  return last_statement < lines_.size() && ts_.Is(lines_[last_statement].first, "return");
}

// An `if` and its `elif`s; and, when every branch returns, the `if`s right after it
// (`if is_sm120: return "sparse"` then `if is_sm100: return "trtllm-gen"` is one dispatch).
std::vector<std::vector<std::pair<int, int>>> StatementIndex::ConditionedChains() const {
  std::vector<std::vector<std::pair<int, int>>> chains;
  auto header = [&](size_t k) {
    const size_t colon = HeaderColon(k);
    const size_t end = colon == std::string_view::npos ? lines_[k].last - 1 : colon;
    return std::make_pair(ts_.tokens[lines_[k].first].line, ts_.tokens[end].line);
  };
  auto is_sibling = [&](size_t j, size_t k, const char* word) {
    return j < lines_.size() && lines_[j].depth == lines_[k].depth && ts_.Is(lines_[j].first, word);
  };
  std::vector<bool> taken(lines_.size(), false);  // an `if` already in an earlier one's chain
  for (size_t k = 0; k < lines_.size(); ++k) {
    if (!ts_.Is(lines_[k].first, "if") || taken[k]) continue;
    std::vector<std::pair<int, int>> chain;
    size_t j = k;
    while (true) {  // one if-elif statement per round
      taken[j] = true;
      bool returns = BlockReturns(j);
      chain.push_back(header(j));
      for (j = BlockEnd(j); is_sibling(j, k, "elif"); j = BlockEnd(j)) {
        chain.push_back(header(j));
        returns &= BlockReturns(j);
      }
      if (!returns || is_sibling(j, k, "else") || !is_sibling(j, k, "if")) break;
    }
    if (chain.size() > 1) chains.push_back(std::move(chain));
  }
  return chains;
}

bool StatementIndex::IsRefusal(size_t a, size_t b) const {
  if (a >= b) return false;
  if (ts_.Is(a, "raise") || ts_.Is(a, "continue")) return true;
  if (ts_.Is(a, "assert")) return b == a + 2 && ts_.Is(a + 1, "False");
  if (ts_.Is(a, "return")) {
    if (b == a + 1) return true;
    size_t v = ts_.Is(a + 1, "(") ? a + 2 : a + 1;  // return (False, "why")
    const bool falsy = ts_.Is(v, "False") || ts_.Is(v, "None") || ts_.Is(v, "NotImplemented");
    return falsy && (v + 1 == b || ts_.Is(v + 1, ",") || (v == a + 2 && ts_.Is(v + 1, ")") && v + 2 == b));
  }
  // pytest.skip(...), pytest.xfail(...), sys.exit(...), exit(...), os._exit(...), os.abort()
  size_t i = a;
  while (i + 2 < b && ts_.IsName(i) && ts_.Is(i + 1, ".")) i += 2;
  if (!ts_.IsName(i) || !ts_.Is(i + 1, "(")) return false;
  const std::string_view name = ts_.Text(i);
  return name == "skip" || name == "xfail" || name == "exit" || name == "_exit" || name == "abort";
}

bool StatementIndex::BlockRefuses(size_t k) const {
  const size_t colon = HeaderColon(k);
  if (colon == std::string_view::npos) return false;
  const LogicalLine& l = lines_[k];
  if (colon + 1 < l.last) {  // `if x: raise E` or `if x: a(); return False`
    size_t start = colon + 1;
    for (size_t i = colon + 1; i < l.last; ++i) {
      if (ts_.Is(i, ";") && i + 1 < l.last) start = i + 1;
    }
    size_t end = l.last;
    if (ts_.Is(end - 1, ";")) --end;
    return IsRefusal(start, end);
  }
  size_t last_statement = lines_.size();
  for (size_t j = k + 1, end = BlockEnd(k); j < end; ++j) {
    if (lines_[j].depth == l.depth + 1) last_statement = j;
  }
  if (last_statement == lines_.size()) return false;
  const LogicalLine& s = lines_[last_statement];
  if (!IsRefusal(s.first, s.last)) return false;
  if (ts_.Is(s.first, "raise") || (!ts_.Is(s.first, "return") && !ts_.Is(s.first, "continue"))) return true;
  // `return` / `continue` after work ends a path; after nothing but logging it refuses.
  for (size_t j = k + 1; j < last_statement; ++j) {
    if (lines_[j].depth == l.depth + 1 && !IsLogging(lines_[j].first, lines_[j].last)) return false;
  }
  return true;
}

// A body of asserts and validator calls (`validate_*`, `_validate_*`, `check_*`, `_check_*`)
// restricts the arches its condition names: flash-attention checks head dims on every arch but
// SM12x, which passes unchecked.
bool StatementIndex::BlockOnlyValidates(size_t k) const {
  const size_t colon = HeaderColon(k);
  if (colon == std::string_view::npos) return false;
  if (colon + 1 < lines_[k].last) return IsValidation(colon + 1, lines_[k].last);
  bool any = false;
  for (size_t j = k + 1, end = BlockEnd(k); j < end; ++j) {
    if (lines_[j].depth != lines_[k].depth + 1) continue;  // inside a statement already read
    if (!IsValidation(lines_[j].first, lines_[j].last)) return false;
    any = true;
  }
  return any;
}

// `assert ...` (flash-attention's asserts for its SM100 hd256 kernel), or one call to a validator.
bool StatementIndex::IsValidation(size_t a, size_t b) const {
  if (ts_.Is(a, "assert")) return true;
  size_t i = a;
  while (i + 2 < b && ts_.IsName(i) && ts_.Is(i + 1, ".")) i += 2;
  if (!ts_.IsName(i) || !ts_.Is(i + 1, "(") || ts_.match[i + 1] + 1 != b) return false;
  std::string_view name = ts_.Text(i);
  while (name.starts_with("_")) name.remove_prefix(1);
  return name.starts_with("validate") || name.starts_with("check_");
}

// The body's statements all bind constants (`NAME = value`, `self.x = value`)? CUTLASS's
// `if self.cc in [100, 101, 103] and ...: valid = False` restricts the arches it names, so those
// outside pass; flash-attention's `if arch // 10 not in [9, 12]: num_threads = 384` tunes.
StatementIndex::Constants StatementIndex::BlockSetsConstants(size_t k) const {
  const size_t colon = HeaderColon(k);
  if (colon == std::string_view::npos) return Constants::kOther;
  std::vector<std::pair<size_t, size_t>> statements;
  if (colon + 1 < lines_[k].last) {
    statements.emplace_back(colon + 1, lines_[k].last);
  } else {
    for (size_t j = k + 1, end = BlockEnd(k); j < end; ++j) {
      if (lines_[j].depth != lines_[k].depth + 1) return Constants::kOther;  // a nested block
      statements.emplace_back(lines_[j].first, lines_[j].last);
    }
  }
  bool falsy = false, numbers = !statements.empty();
  for (const auto& [a, b] : statements) {
    size_t i = a;
    while (i + 2 < b && ts_.IsName(i) && ts_.Is(i + 1, ".")) i += 2;
    if (!ts_.IsName(i) || !ts_.Is(i + 1, "=")) return Constants::kOther;
    size_t v = i + 2;
    if (ts_.Is(v, "-")) ++v;
    if (v + 1 != b && !(v + 2 == b && ts_.Is(v + 1, ";"))) return Constants::kOther;
    const bool number = ts_.tokens[v].kind == TokenKind::kNumber;
    const bool none_or_false = ts_.Is(v, "False") || ts_.Is(v, "None");
    if (!number && !none_or_false && ts_.tokens[v].kind != TokenKind::kString) return Constants::kOther;
    falsy |= none_or_false;
    numbers &= number;
  }
  return falsy ? Constants::kFalsy : numbers ? Constants::kNumbers : Constants::kOther;
}

// CUTLASS's `if cc in [90, 100]: logger.warning("Reverting to SM80-tagged kernels") ...`: a
// body that opens with a warning is a workaround for the arches it names; the others carry on
// along the main path, so neither side is an exclusion.
bool StatementIndex::BlockWarnsFirst(size_t k) const {
  const size_t colon = HeaderColon(k);
  if (colon == std::string_view::npos) return false;
  size_t a = colon + 1, b = lines_[k].last;
  if (a >= b) {
    const size_t first = k + 1;
    if (first >= BlockEnd(k)) return false;
    a = lines_[first].first;
    b = lines_[first].last;
  }
  for (size_t i = a; i + 1 < b && (ts_.IsName(i) || ts_.Is(i, ".")); ++i) {
    const std::string_view t = ts_.Text(i);
    if ((t == "warning" || t == "warn") && ts_.Is(i + 1, "(")) return true;
  }
  return false;
}

bool StatementIndex::IsLogging(size_t a, size_t b) const {
  for (size_t i = a; i < b && (ts_.IsName(i) || ts_.Is(i, ".")); ++i) {
    const std::string_view t = ts_.Text(i);
    if (t == "print" || t.find("log") != t.npos || t.find("warn") != t.npos || t == "logger") return true;
  }
  return false;
}

// `if cond:` whose body does not refuse: it enables, unless the target has somewhere else to go
// (an else that does not refuse, or code after a body that returns).
Branch StatementIndex::IfBranch(size_t k) const {
  if (BlockRefuses(k)) return Branch::kRefuses;
  if (BlockWarnsFirst(k)) return Branch::kFallback;
  if (BlockOnlyValidates(k)) return Branch::kRefuses;  // `if arch // 10 != 12: _validate_head_dims(...)`
  switch (BlockSetsConstants(k)) {
    case Constants::kFalsy: return Branch::kRefuses;     // `valid = False; msg = "..."`: a restriction
    case Constants::kNumbers: return Branch::kFallback;  // `num_threads = 384`: tuning
    case Constants::kOther: break;
  }
  const int depth = lines_[k].depth;
  size_t j = BlockEnd(k);
  while (j < lines_.size() && lines_[j].depth == depth && ts_.Is(lines_[j].first, "elif")) j = BlockEnd(j);
  if (j < lines_.size() && lines_[j].depth == depth && ts_.Is(lines_[j].first, "else")) {
    return BlockRefuses(j) ? Branch::kEnables : Branch::kFallback;
  }
  // No else: a body that returns a value leaves the rest of the function as the alternative.
  size_t last_statement = lines_.size();
  const size_t colon = HeaderColon(k);
  if (colon != std::string_view::npos && colon + 1 < lines_[k].last) {
    if (!ts_.Is(colon + 1, "return")) return Branch::kEnables;
  } else {
    for (size_t b = k + 1, end = BlockEnd(k); b < end; ++b) {
      if (lines_[b].depth == depth + 1) last_statement = b;
    }
    if (last_statement == lines_.size() || !ts_.Is(lines_[last_statement].first, "return")) return Branch::kEnables;
  }
  // Skip further `if ...: return x` blocks: the first plain statement after them decides.
  while (j < lines_.size() && lines_[j].depth == depth &&
         (ts_.Is(lines_[j].first, "if") || ts_.Is(lines_[j].first, "elif") || ts_.Is(lines_[j].first, "else"))) {
    j = BlockEnd(j);
  }
  if (j >= lines_.size() || lines_[j].depth != depth) return Branch::kEnables;
  return IsRefusal(lines_[j].first, lines_[j].last) ? Branch::kEnables : Branch::kFallback;
}

// `not` before the gate, or before a parenthesis holding it, flips its meaning (each one).
bool StatementIndex::Negated(size_t cond_begin, size_t first, size_t last) const {
  bool negated = false;
  for (size_t t = cond_begin; t < first; ++t) {
    if (!ts_.Is(t, "not") || ts_.Is(t + 1, "in")) continue;
    if (t + 1 == first ||
        (ts_.Is(t + 1, "(") && ts_.match[t + 1] >= last && ts_.match[t + 1] != std::string_view::npos)) {
      negated = !negated;
    }
  }
  return negated;
}

GateDirection StatementIndex::DirectionOf(size_t first, size_t last) const {
  GateDirection d;
  const size_t k = LineOf(first);
  if (k >= lines_.size()) return d;
  const LogicalLine& l = lines_[k];
  const bool header = ts_.Is(l.first, "if") || ts_.Is(l.first, "elif") || ts_.Is(l.first, "while");
  const size_t colon = header ? HeaderColon(k) : std::string_view::npos;
  if (header && colon != std::string_view::npos && first < colon) {
    d.negated = Negated(l.first + 1, first, last);
    d.branch = ts_.Is(l.first, "while") ? Branch::kEnables : IfBranch(k);
    return d;
  }
  if (ts_.Is(l.first, "assert")) {
    d.negated = Negated(l.first + 1, first, last);
    return d;
  }
  // `config(allow_kv_subtile=arch // 10 in [10, 11])`: a flag handed to a callee, which goes on
  // either way (flash-attention's block-sparse config); not a branch that keeps anyone out.
  if (first >= 3 && ts_.Is(first - 1, "=") && ts_.IsName(first - 2) &&
      (ts_.Is(first - 3, "(") || ts_.Is(first - 3, ",")) && (ts_.Is(last, ",") || ts_.Is(last, ")"))) {
    d.branch = Branch::kFallback;
    return d;
  }
  // `a if gate else b`: both sides are working paths.
  const size_t from = colon == std::string_view::npos ? l.first : colon + 1;
  bool if_before = false;
  for (size_t t = from; t < first; ++t) {
    if (ts_.Is(t, "if")) if_before = true, d.negated = Negated(t + 1, first, last);
  }
  bool else_after = false;
  for (size_t t = last; t < l.last && if_before; ++t) else_after |= ts_.Is(t, "else");
  if (if_before && else_after)
    d.branch = Branch::kFallback;
  else
    d.negated = false;
  return d;
}

}  // namespace archpatch::python
