// The per-module half of the package model: imports, predicate defs and branch calls of one file.
#include "python/module_summary.h"

#include <algorithm>
#include <bitset>
#include <map>

#include "python/cond_expr.h"
#include "python/recognizer.h"
#include "python/word_set.h"

namespace archpatch::python {
namespace {

constexpr size_t kMaxPredicateLines = 40;

constexpr std::string_view kWords[] = {"and",  "or",     "not",  "in",   "is",    "if",
                                       "else", "lambda", "None", "True", "False", "await"};
constexpr WordSet kWordSet(kWords);

bool IsKeyword(std::string_view name) { return kWordSet.Has(name); }  // a predicate is a small function

// A set of names that may answer "maybe" for a name not in it, never "no" for one in it: asked
// about every name of every assignment and branch, which were mostly never bound in any scope,
// it spares those a key built and hashed.
class NameFilter {
 public:
  void Add(std::string_view name) { bits_.set(Bit(name)); }
  bool MayHold(std::string_view name) const { return bits_.test(Bit(name)); }

 private:
  static constexpr size_t kBits = 4096;
  static size_t Bit(std::string_view name) {  // `name` is a name token: never empty
    const auto first = static_cast<unsigned char>(name.front()), last = static_cast<unsigned char>(name.back());
    return (first * 31U + last * 7U + name.size() * 131U) % kBits;
  }
  std::bitset<kBits> bits_;
};

CondExpr FalseExpr() {  // what `return`, `return None`, falling off the end and `raise` give
  CondExpr e;
  e.kind = CondExpr::Kind::kConst;
  e.value = Tri::kFalse;
  return e;
}

class Summarizer {
 public:
  Summarizer(const std::string& file, const TokenStream& ts, const std::vector<LogicalLine>& lines,
             const std::vector<Gate>& gates, const std::vector<arch::Arch>& arches)
      : ts_(ts), lines_(lines), statements_(ts, lines), parser_(ts, gate_at_, out_.gates) {
    out_.file = file;
    for (const Gate& g : gates) {
      GateTruth truth;
      const Token& at = ts.tokens[g.first_token];
      truth.where = {at.line, at.column, ts.Folded(g.first_token, g.last_token)};
      truth.last_token = g.last_token;
      for (const arch::Arch& a : arches) truth.holds.push_back(g.EvaluateOn(a));
      auto [it, fresh] = gate_at_.emplace(g.first_token, out_.gates.size());
      if (!fresh && out_.gates[it->second].last_token < g.last_token) it->second = out_.gates.size();
      out_.gates.push_back(std::move(truth));
    }
  }

  ModuleSummary Run() {
    std::string scope;  // of the line before, joined again only when it changes
    for (size_t k = 0; k < lines_.size(); ++k) {
      const LogicalLine& l = lines_[k];
      if (k == 0 || l.scope != lines_[k - 1].scope) scope = ScopeName(l.scope);
      if (ts_.Is(l.first, "import") || ts_.Is(l.first, "from"))
        Import(l);
      else if (ts_.Is(l.first, "def") || (ts_.Is(l.first, "async") && ts_.Is(l.first + 1, "def")))
        Def(k);
      else if (IsBranchHeader(l))
        Branch(k, scope);
      else
        Binding(l, scope);
    }
    return std::move(out_);
  }

 private:
  bool IsBranchHeader(const LogicalLine& l) const {
    return ts_.Is(l.first, "if") || ts_.Is(l.first, "elif") || ts_.Is(l.first, "while") || ts_.Is(l.first, "assert");
  }

  // `import a.b as c`, `from ..x import (y as z, w)`.
  void Import(const LogicalLine& l) {
    size_t i = l.first + 1;
    auto dotted = [&](size_t& k) {
      std::string name;
      while (k < l.last && (ts_.IsName(k) || ts_.Is(k, "."))) {
        if (ts_.Is(k, "import")) break;
        name += ts_.Text(k++);
      }
      return name;
    };
    if (ts_.Is(l.first, "import")) {
      while (i < l.last) {
        std::string module = dotted(i);
        std::string alias = module.substr(0, module.find('.'));
        if (ts_.Is(i, "as") && ts_.IsName(i + 1))
          alias = std::string(ts_.Text(i + 1)), i += 2;
        else
          module = alias;  // `import a.b` binds `a`
        out_.imports.push_back({alias, 0, module, ""});
        if (!ts_.Is(i, ",")) break;
        ++i;
      }
      return;
    }
    int level = 0;
    while (ts_.Is(i, ".") || ts_.Is(i, "...")) level += static_cast<int>(ts_.Text(i).size()), ++i;
    std::string module = dotted(i);
    if (!ts_.Is(i, "import")) return;
    for (++i; i < l.last; ++i) {
      if (!ts_.IsName(i) || ts_.Is(i, "as")) continue;
      std::string name(ts_.Text(i)), alias = name;
      if (ts_.Is(i + 1, "as") && ts_.IsName(i + 2)) alias = std::string(ts_.Text(i + 2)), i += 2;
      out_.imports.push_back({alias, level, module, name});
    }
  }

  std::vector<std::string> Params(size_t name_at) const {
    std::vector<std::string> params;
    if (!ts_.Is(name_at + 1, "(")) return params;
    const size_t close = ts_.match[name_at + 1];
    bool expect = true;
    for (size_t i = name_at + 2; i < close; ++i) {
      if (ts_.Is(i, "(") || ts_.Is(i, "[") || ts_.Is(i, "{")) {
        i = ts_.match[i];
        continue;
      }
      if (ts_.Is(i, ","))
        expect = true;
      else if (expect && ts_.IsName(i))
        params.emplace_back(ts_.Text(i)), expect = false;
      else if (!ts_.Is(i, "*") && !ts_.Is(i, "**"))
        expect = false;
    }
    if (!params.empty() && (params[0] == "self" || params[0] == "cls")) params.erase(params.begin());
    return params;
  }

  bool HasReturn(size_t a, size_t b) const {
    for (size_t k = a; k < b; ++k) {
      for (size_t t = lines_[k].first; t < lines_[k].last; ++t) {
        if (ts_.Is(t, "return")) return true;
      }
    }
    return false;
  }

  // `def f(...)`: kept when every return reads as a condition (early `if c: return r` allowed).
  void Def(size_t k) {
    const LogicalLine& l = lines_[k];
    const size_t name_at = ts_.Is(l.first, "async") ? l.first + 2 : l.first + 1;
    const size_t end = statements_.BlockEnd(k);
    if (end - k > kMaxPredicateLines || end == k + 1) return;
    PredicateDef def;
    def.params = Params(name_at);
    const std::string scope = ScopeName(l.scope);
    bool has_last = false;
    for (size_t j = k + 1; j < end; j = statements_.BlockEnd(j)) {
      const LogicalLine& s = lines_[j];
      if (ts_.Is(s.first, "return")) {
        def.last = s.last == s.first + 1 ? FalseExpr() : Parse(s.first + 1, s.last, def, scope);
        has_last = true;
        break;
      }
      if (ts_.Is(s.first, "if") && !EarlyReturn(j, def, scope) && HasReturn(j, statements_.BlockEnd(j))) return;
      if (!ts_.Is(s.first, "if") && HasReturn(j + 1, statements_.BlockEnd(j))) return;
      if (!ts_.Is(s.first, "if")) Binding(s, scope);
    }
    if (!has_last) def.last = FalseExpr();  // falls off its end: None
    bool useful = HasCapabilityPart(def.last);
    for (const auto& [c, r] : def.early) useful |= HasCapabilityPart(c) || HasCapabilityPart(r);
    if (!useful) return;
    def.name = std::string(ts_.Text(name_at));  // only now: most defs are no predicate
    const Token& at = ts_.tokens[l.first];
    def.where = {at.line, at.column, ts_.Folded(l.first, l.last)};
    out_.predicates.push_back(std::move(def));
  }

  // `if c: return r` (inline or a block of just that), `if c: raise ...` (the predicate is false).
  bool EarlyReturn(size_t j, PredicateDef& def, const std::string& scope) {
    const size_t colon = statements_.HeaderColon(j);
    const size_t block_end = statements_.BlockEnd(j);
    if (colon == std::string_view::npos) return false;
    if (block_end < lines_.size() && lines_[block_end].depth == lines_[j].depth &&
        (ts_.Is(lines_[block_end].first, "elif") || ts_.Is(lines_[block_end].first, "else"))) {
      return false;
    }
    size_t a = colon + 1, b = lines_[j].last;
    if (a == b) {
      if (block_end != j + 2) return false;
      a = lines_[j + 1].first, b = lines_[j + 1].last;
    }
    CondExpr c = Parse(lines_[j].first + 1, colon, def, scope);
    if (ts_.Is(a, "raise"))
      def.early.emplace_back(std::move(c), FalseExpr());
    else if (ts_.Is(a, "return"))
      def.early.emplace_back(std::move(c), a + 1 == b ? FalseExpr() : Parse(a + 1, b, def, scope));
    else
      return false;
    return true;
  }

  CondExpr Parse(size_t a, size_t b, const PredicateDef& def, const std::string& scope) {
    return parser_.Parse(a, b, &def.params, &bound_, scope);
  }

  // `is_sm90 = major == 9 and ...`: a condition kept for later tests of the name in this scope.
  void Binding(const LogicalLine& l, const std::string& scope) {
    if (!ts_.IsName(l.first) || !ts_.Is(l.first + 1, "=") || l.last < l.first + 3) return;
    if (!MayHoldCondition(l.first + 2, l.last, scope)) return;
    if (parser_.IsBareCall(l.first + 2, l.last)) {  // a call is a capability part
      Bind(scope, l.first, {{}, true, l.first, l.last});
      return;
    }
    CondExpr e = parser_.Parse(l.first + 2, l.last, nullptr, &bound_, scope);
    if (!HasCapabilityPart(e)) return;
    parser_.MarkBound(l.first, l.last, e);
    Bind(scope, l.first, {std::move(e), false, 0, 0});
  }

  // The statement on tokens from `at` (`NAME = ...`) binds NAME in `scope`.
  void Bind(const std::string& scope, size_t at, BoundCondition bound) {
    bound_names_.Add(ts_.Text(at));
    bound_[BoundKey(key_, scope, ts_.Text(at))] = std::move(bound);
  }
  bool IsBound(const std::string& scope, std::string_view name) const {
    return bound_names_.MayHold(name) && bound_.count(BoundKey(key_, scope, name)) > 0;
  }

  // Whether tokens [a, b) can parse to a capability part: only a gate, a call or a name bound to a
  // condition gives one (no parameters are tested outside a def). Most assignments hold none, and
  // parsing each was a tenth of a module's scan.
  bool MayHoldCondition(size_t a, size_t b, const std::string& scope) const {
    if (auto gate = gate_at_.lower_bound(a); gate != gate_at_.end() && gate->first < b) return true;
    for (size_t i = a; i < b; ++i) {
      if (ts_.Is(i, "(")) return true;
      if (ts_.IsName(i) && IsBound(scope, ts_.Text(i))) return true;
    }
    return false;
  }

  // An if/elif/while/assert condition that tests a call or a name bound to a condition: the whole
  // condition is one site (its and/or/not decide together), resolved by the package model.
  void Branch(size_t k, const std::string& scope) {
    const LogicalLine& l = lines_[k];
    size_t end = ts_.Is(l.first, "assert") ? l.last : statements_.HeaderColon(k);
    if (end == std::string_view::npos || end <= l.first + 1) return;
    for (size_t t = l.first + 1; t < end; ++t) {
      if (ts_.Is(l.first, "assert") && ts_.Is(t, ",")) end = t;  // the message is no condition
    }
    bool resolvable = false;
    for (size_t i = l.first + 1; i < end && !resolvable; ++i) {
      if (!ts_.IsName(i) || IsKeyword(ts_.Text(i)) || (i > l.first + 1 && ts_.Is(i - 1, "."))) continue;
      const size_t j = PrimaryEnd(ts_, i, end);
      resolvable =
          (j > i + 1 && ts_.Is(j - 1, ")") && gate_at_.count(i) == 0) || (j == i + 1 && IsBound(scope, ts_.Text(i)));
    }
    if (!resolvable) return;
    const size_t first = l.first + 1;
    CallSite site;
    site.call = parser_.Parse(first, end, nullptr, &bound_, scope);
    if (site.call.kind == CondExpr::Kind::kUnknown && site.call.bound_name.empty()) return;
    site.first_token = first, site.last_token = end;
    site.span = ts_.Span(first, end);
    site.where = {ts_.tokens[first].line, ts_.tokens[first].column, ts_.Folded(first, end)};
    site.scope = scope;
    site.direction = statements_.DirectionOf(first, end);
    out_.calls.push_back(std::move(site));
  }

  const TokenStream& ts_;
  const std::vector<LogicalLine>& lines_;
  StatementIndex statements_;
  ModuleSummary out_;
  std::map<size_t, size_t> gate_at_;
  CondParser parser_;
  BoundConditions bound_;
  NameFilter bound_names_;   // the names in bound_, any scope
  mutable std::string key_;  // scratch for BoundKey
};

}  // namespace

ModuleSummary SummarizeModule(const std::string& file, const TokenStream& ts, const std::vector<LogicalLine>& lines,
                              const std::vector<Gate>& gates, const std::vector<arch::Arch>& arches) {
  return Summarizer(file, ts, lines, gates, arches).Run();
}

}  // namespace archpatch::python
