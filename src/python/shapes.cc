// The half of the recogniser that reads gates from their names: keyword arguments and
// assignments that carry arch lists, capability predicates, compute-capability decorators, and
// arch strings (nvcc flags, "sm_100a", TORCH_CUDA_ARCH_LIST values).
#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "python/prefilter.h"
#include "python/recognizer.h"

namespace archpatch::python {
namespace {

bool Contains(std::string_view text, std::string_view part) { return text.find(part) != text.npos; }

// The callees FindCalls reads a literal argument of (lowered): exactly those its dispatch below
// names, checked before any argument is parsed. A callee added there must be added here (the
// fixtures of docs/python-gates.md hold one call of each).
bool IsPredicateCallee(std::string_view callee) {
  return callee == "has_device_capability" || callee == "is_device_capability" ||
         callee == "is_device_capability_family" || callee == "is_arch_supported" || callee == "is_family_of" ||
         Contains(callee, "compute_capabilit");
}

// A line that names an arch list (TORCH_CUDA_ARCH_LIST, cuda_arch_flags) in a name or a string:
// there a dotted string ("9.0 10.0a") is an arch list.
bool IsArchListLine(const TokenStream& ts, const LogicalLine& line) {
  for (size_t i = line.first; i < line.last; ++i) {
    if (ts.tokens[i].kind != TokenKind::kName && ts.tokens[i].kind != TokenKind::kString) continue;
    const std::string_view text = ts.Text(i);
    if (ContainsLower(text, "arch_list") || ContainsLower(text, "cuda_arch")) return true;
  }
  return false;
}

bool IsInt(const Literal& l) { return l.kind == LiteralKind::kInt; }
bool IsArchString(const Literal& l) { return l.kind == LiteralKind::kString && arch::ReadArchName(l.text).has_value(); }

// "12.8" next to TORCH_CUDA_ARCH_LIST is more likely a CUDA version than a GPU: a dotted entry
// must name a chip nvcc 13 knows, or an older one (major < 9) that it dropped.
bool IsRealChip(const ArchName& name) { return name.arch.major < 9 || arch::IsKnown(name.arch.plain()); }

// A list literal holding one string per arch name, for evaluation only.
Literal NameList(const std::vector<ArchName>& names, const Literal& origin) {
  Literal list;
  list.kind = LiteralKind::kList;
  list.span = origin.span;
  for (const ArchName& n : names) {
    Literal item;
    item.kind = LiteralKind::kString;
    item.text = n.text();
    item.span = origin.span;
    list.items.push_back(item);
  }
  return list;
}

// How a carrier's value reads: which operand, and the literal to evaluate.
std::optional<Term> CarrierTerm(std::string_view name, const Literal& lit) {
  const bool major_name = Contains(LowerName(name), "major");
  if (lit.kind == LiteralKind::kString) {
    std::optional<std::vector<ArchName>> names = ParseArchListString(lit.text);
    if (!names) return std::nullopt;
    return Term{Operand::kArchName, Compare::kIn, NameList(*names, lit)};
  }
  if (lit.kind == LiteralKind::kInt) {
    if (major_name || lit.number < 30) return Term{Operand::kMajor, Compare::kEq, lit};
    return Term{Operand::kComputeCapability, Compare::kEq, lit};
  }
  if (!lit.IsCollection()) return std::nullopt;
  if (AllItems(lit, IsArchString)) return Term{Operand::kArchName, Compare::kIn, lit};
  if (AllItems(lit, IsPair)) return Term{Operand::kCapability, Compare::kIn, lit};
  if (!AllItems(lit, IsInt)) return std::nullopt;
  auto all = [&](auto pred) {
    return std::all_of(lit.items.begin(), lit.items.end(),
                       [&](const Literal& i) { return !IsInt(i) || pred(i.number); });
  };
  if (major_name || all([](long long n) { return n < 30; })) return Term{Operand::kMajor, Compare::kIn, lit};
  if (all([](long long n) { return n >= 30; })) return Term{Operand::kComputeCapability, Compare::kIn, lit};
  return std::nullopt;
}

}  // namespace

// The bytes the gates found so far cover (expression and literal), sorted and merged, so that
// arch strings inside them are not reported twice. Built once before the arch-string pass.
void Recognizer::CollectCovered() {
  std::vector<ByteSpan> spans;
  for (const Gate& g : gates_) {
    spans.push_back(ts_.Span(g.first_token, g.last_token));
    spans.push_back(g.literal.span);
  }
  std::sort(spans.begin(), spans.end(), [](const ByteSpan& a, const ByteSpan& b) { return a.begin < b.begin; });
  covered_.clear();
  for (const ByteSpan& s : spans) {
    if (!covered_.empty() && s.begin <= covered_.back().end) {
      covered_.back().end = std::max(covered_.back().end, s.end);
    } else {
      covered_.push_back(s);
    }
  }
}

bool Recognizer::CoveredByGate(size_t offset) const {
  auto after = std::upper_bound(covered_.begin(), covered_.end(), offset,
                                [](size_t o, const ByteSpan& s) { return o < s.begin; });
  return after != covered_.begin() && offset < std::prev(after)->end;
}

// `supported_major_versions=[9, 10]`, `admissible_archs = ["sm_90a", "sm_100a"]`,
// `self.supported_archs: list[int] = [90, 100]`, `TORCH_CUDA_ARCH_LIST = "9.0a 10.0a"`.
void Recognizer::FindCarriers(const LogicalLine& line) {
  for (size_t i = line.first; i < line.last; ++i) {
    if (!ts_.IsName(i) || !IsCarrierName(ts_.Text(i))) continue;
    const bool keyword = i > line.first && (ts_.Is(i - 1, "(") || ts_.Is(i - 1, ","));
    const bool assignment = i == line.first || (ts_.Is(i - 1, ".") && PrimaryEnd(ts_, line.first, line.last) == i + 1);
    size_t eq = i + 1;
    if (assignment && ts_.Is(eq, ":")) {
      while (eq < line.last && !ts_.Is(eq, "=")) {
        eq = ts_.match[eq] != std::string_view::npos && ts_.tokens[eq].kind == TokenKind::kOp ? ts_.match[eq] + 1
                                                                                              : eq + 1;
      }
    }
    if (!(keyword || assignment) || !ts_.Is(eq, "=")) continue;
    size_t next = 0;
    std::optional<Literal> lit = ParseLiteral(ts_, eq + 1, line.last, next, &bindings_);
    if (!lit || lit->kind == LiteralKind::kNone) continue;  // None: no restriction
    if (next != line.last && !ts_.Is(next, ",") && !ts_.Is(next, ")")) continue;
    std::optional<Term> term = CarrierTerm(ts_.Text(i), *lit);
    if (!term) continue;
    gates_.push_back(
        Gate{keyword ? "keyword" : "assignment", std::string(ts_.Text(i)), *lit, i, next, line.scope, {{*term}}});
  }
}

// has_device_capability(90), is_device_capability(100), is_device_capability_family(100),
// is_arch_supported(10, 0), @supported_compute_capability([80, 86, 89, 90, 100, 103]).
void Recognizer::FindCalls(const LogicalLine& line) {
  for (size_t i = line.first; i + 1 < line.last; ++i) {
    if (!ts_.IsName(i) || !ts_.Is(i + 1, "(") || (i > line.first && ts_.Is(i - 1, "def"))) continue;
    if (ts_.Text(i).size() < kShortestPredicateCallee) continue;  // most callees: no copy lowered
    const LowerName lowered(ts_.Text(i));
    const std::string_view callee = lowered;
    if (!IsPredicateCallee(callee)) continue;  // no literal is read for any other
    const size_t close = ts_.match[i + 1];
    size_t next = 0;
    std::optional<Literal> first = ParseLiteral(ts_, i + 2, close, next, &bindings_);
    if (!first) continue;
    std::optional<Literal> second;
    if (ts_.Is(next, ",")) {
      size_t at = next + 1;
      if (ts_.IsName(at) && ts_.Is(at + 1, "=")) at += 2;  // minor=0
      second = ParseLiteral(ts_, at, close, next, &bindings_);
    }
    // What follows the numbers may only be keyword arguments (`device=device`) or a trailing comma.
    const bool rest_keywords =
        ts_.Is(next, ",") && (next + 1 == close || (ts_.IsName(next + 1) && ts_.Is(next + 2, "=")));
    if (next != close && !rest_keywords) continue;
    size_t start = i;
    while (start >= line.first + 2 && ts_.Is(start - 1, ".") && ts_.IsName(start - 2)) start -= 2;

    std::optional<Term> term;
    Literal shown = *first;
    if (callee == "has_device_capability" || callee == "is_device_capability") {
      const Compare op = callee[0] == 'h' ? Compare::kGe : Compare::kEq;
      if (IsInt(*first) && !second) term = Term{Operand::kComputeCapability, op, *first};
      if (IsPair(*first) && !second) term = Term{Operand::kCapability, op, *first};
    } else if (callee == "is_device_capability_family" && IsInt(*first) && !second) {
      Literal major = *first;
      major.number = first->number / 10;
      term = Term{Operand::kMajor, Compare::kEq, major};
    } else if (callee == "is_arch_supported" && IsInt(*first) && (!second || IsInt(*second))) {
      Literal pair;
      pair.kind = LiteralKind::kTuple;
      Literal zero;  // is_arch_supported(major) means minor 0
      zero.kind = LiteralKind::kInt;
      pair.items = {*first, second ? *second : zero};
      pair.first_token = first->first_token;
      pair.last_token = second ? second->last_token : first->last_token;
      pair.span = {first->span.begin, second ? second->span.end : first->span.end};
      shown = pair;
      term = Term{Operand::kCapability, Compare::kGe, pair};
    } else if (callee == "is_family_of" && IsArchString(*first) && !second) {
      // `arch.is_family_of(Arch.sm_120a)`: any arch of that family (same major, minor at or above).
      const arch::Arch named = arch::ReadArchName(first->text)->arch;
      Literal family = *first;
      family.text = fmt::format("sm_{}{}f", named.major, named.minor);
      term = Term{Operand::kArchName, Compare::kEq, family};
    } else if (Contains(callee, "compute_capabilit") && first->IsCollection() && !second) {
      if (AllItems(*first, IsInt)) term = Term{Operand::kComputeCapability, Compare::kIn, *first};
      if (AllItems(*first, IsPair)) term = Term{Operand::kCapability, Compare::kIn, *first};
    }
    if (!term) continue;
    const bool list = Contains(callee, "compute_capabilit") && first->IsCollection();
    gates_.push_back(Gate{list ? "compute-capability-list" : "predicate",
                          std::string(ts_.Text(i)),
                          shown,
                          start,
                          close + 1,
                          line.scope,
                          {{*term}}});
  }
}

// Run on the lines that hold a string.
void Recognizer::FindArchStrings(const LogicalLine& line) {
  std::optional<bool> arch_list_line;  // read when a string first needs it: most need not
  for (size_t i = line.first; i < line.last; ++i) {
    const Token& t = ts_.tokens[i];
    if (t.kind != TokenKind::kString || t.fstring || ts_.Is(i + 1, ":") || CoveredByGate(t.begin)) continue;
    const std::string_view body = StringBody(ts_.Text(i));
    if (!MayNameArch(body, true)) continue;  // refused on any line: this one need not be read
    if (!arch_list_line) arch_list_line = IsArchListLine(ts_, line);
    if (!MayNameArch(body, *arch_list_line)) continue;
    Literal lit;
    lit.kind = LiteralKind::kString;
    lit.text = std::string(body);
    lit.span = {t.begin, t.end};
    lit.first_token = i;
    lit.last_token = i + 1;
    std::string name;
    if (i >= line.first + 2 && ts_.Is(i - 1, "=") && ts_.IsName(i - 2))
      name = std::string(ts_.Text(i - 2));
    else if (ts_.IsName(line.first) && ts_.Is(line.first + 1, "="))
      name = std::string(ts_.Text(line.first));

    const std::vector<ArchName> targets = NvccArchTargets(lit.text);
    const bool strict = lit.text.rfind("sm_", 0) == 0 || lit.text.rfind("compute_", 0) == 0;
    if (!targets.empty()) {
      gates_.push_back(Gate{"nvcc-arch-flag",
                            name,
                            lit,
                            i,
                            i + 1,
                            line.scope,
                            {{Term{Operand::kArchName, Compare::kIn, NameList(targets, lit)}}}});
    } else if (strict && arch::ReadArchName(lit.text)) {
      gates_.push_back(
          Gate{"arch-string", name, lit, i, i + 1, line.scope, {{Term{Operand::kArchName, Compare::kEq, lit}}}});
    } else if (*arch_list_line && Contains(lit.text, ".")) {
      const std::optional<std::vector<ArchName>> list = ParseArchListString(lit.text);  // only here: it allocates
      if (!list || !std::all_of(list->begin(), list->end(), IsRealChip)) continue;
      gates_.push_back(Gate{"arch-list-string",
                            name,
                            lit,
                            i,
                            i + 1,
                            line.scope,
                            {{Term{Operand::kArchName, Compare::kIn, NameList(*list, lit)}}}});
    }
  }
}

}  // namespace archpatch::python
