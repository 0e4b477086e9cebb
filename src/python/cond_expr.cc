#include "python/cond_expr.h"

#include <algorithm>

#include "python/recognizer.h"

namespace archpatch::python {
namespace {

CondExpr Unknown() { return CondExpr{}; }

CondExpr Const(Tri t) {
  CondExpr e;
  e.kind = CondExpr::Kind::kConst;
  e.value = t;
  return e;
}

CondExpr Node(CondExpr::Kind kind, std::vector<CondExpr> kids) {
  CondExpr e;
  e.kind = kind;
  e.kids = std::move(kids);
  return e;
}

bool IsOpenBracket(const TokenStream& ts, size_t i) {
  return ts.tokens[i].kind == TokenKind::kOp && (ts.Is(i, "(") || ts.Is(i, "[") || ts.Is(i, "{"));
}

}  // namespace

const std::string& BoundKey(std::string& key, std::string_view scope, std::string_view name) {
  key.assign(scope);
  key += '\0';
  key += name;
  return key;
}

bool HasCapabilityPart(const CondExpr& e) {
  if (e.kind == CondExpr::Kind::kGate || e.kind == CondExpr::Kind::kCall || e.kind == CondExpr::Kind::kParamTest) {
    return true;
  }
  return std::any_of(e.kids.begin(), e.kids.end(), HasCapabilityPart);
}

CondExpr CondParser::Parse(size_t a, size_t b, const std::vector<std::string>* params, const BoundConditions* bound,
                           const std::string& scope) {
  params_ = params, bound_ = bound, scope_ = &scope;
  size_t i = a;
  CondExpr e;
  Or(i, b, e);
  if (i != b) e = Unknown();
  return e;
}

bool CondParser::EndsOperand(size_t i, size_t b) const { return i >= b || ts_.Is(i, "and") || ts_.Is(i, "or"); }

size_t CondParser::SkipOperand(size_t i, size_t b) const {
  while (!EndsOperand(i, b)) {
    if (IsOpenBracket(ts_, i) && ts_.match[i] < b)
      i = ts_.match[i] + 1;
    else if (ts_.Is(i, "if") || ts_.Is(i, "lambda"))
      return b;  // a conditional expression: all of it
    else
      ++i;
  }
  return i;
}

// Most operands stand alone (every assignment of a module is parsed): they are written where the
// caller wants them, with no list built around them and no move at each level.
void CondParser::Or(size_t& i, size_t b, CondExpr& out) {
  And(i, b, out);
  if (i >= b || !ts_.Is(i, "or")) return;
  std::vector<CondExpr> kids;
  kids.push_back(std::move(out));
  while (i < b && ts_.Is(i, "or")) And(++i, b, kids.emplace_back());
  out = Node(CondExpr::Kind::kOr, std::move(kids));
}

void CondParser::And(size_t& i, size_t b, CondExpr& out) {
  Not(i, b, out);
  if (i >= b || !ts_.Is(i, "and")) return;
  std::vector<CondExpr> kids;
  kids.push_back(std::move(out));
  while (i < b && ts_.Is(i, "and")) Not(++i, b, kids.emplace_back());
  out = Node(CondExpr::Kind::kAnd, std::move(kids));
}

void CondParser::Not(size_t& i, size_t b, CondExpr& out) {
  if (i >= b || !ts_.Is(i, "not")) return Atom(i, b, out);
  std::vector<CondExpr> kids(1);
  Not(++i, b, kids.front());
  out = Node(CondExpr::Kind::kNot, std::move(kids));
}

// `name(args)` and `a.b.name(args)` with the parenthesis last: a call the model may resolve.
bool CondParser::IsCallee(size_t i, size_t j) const {
  if (j < i + 3 || !ts_.Is(j - 1, ")")) return false;
  for (size_t k = i, open = ts_.match[j - 1]; k < open; ++k) {
    if (!(ts_.IsName(k) || ts_.Is(k, "."))) return false;
  }
  return true;
}

// The call on [i, j), which IsCallee accepted.
void CondParser::Call(size_t i, size_t j, CondExpr& out) const {
  const size_t open = ts_.match[j - 1];
  out.kind = CondExpr::Kind::kCall;
  for (size_t k = i; k < open; ++k) out.callee += ts_.Text(k);
  for (size_t k = open + 1; k < j - 1;) {
    if (ts_.IsName(k) && ts_.Is(k + 1, "=")) break;  // keyword arguments end the positional ones
    size_t next = k;
    std::optional<Literal> lit = ParseLiteral(ts_, k, j - 1, next, nullptr);
    if (!lit || (next < j - 1 && !ts_.Is(next, ","))) {
      lit = Literal{};
      next = k;
      while (next < j - 1 && !ts_.Is(next, ",")) next = IsOpenBracket(ts_, next) ? ts_.match[next] + 1 : next + 1;
    }
    out.args.push_back(*lit);
    k = next + 1;
  }
  const Token& at = ts_.tokens[i];
  out.where = {at.line, at.column, ts_.Folded(i, j)};
}

// Or, And and Not down to Atom's path to Call, taken before any other (`not(f(x))` is a kNot).
bool CondParser::IsBareCall(size_t a, size_t b) const {
  if (a >= b || !ts_.IsName(a) || ts_.Is(a, "not") || ts_.Is(a, "True") || ts_.Is(a, "False")) return false;
  if (auto g = gate_at_.find(a); g != gate_at_.end() && gates_[g->second].last_token <= b) return false;
  return PrimaryEnd(ts_, a, b) == b && IsCallee(a, b);
}

CondExpr CondParser::Resolve(const BoundCondition& bound) const {
  if (!bound.deferred) return bound.expr;
  CondExpr e;
  Call(bound.first + 2, bound.last, e);
  MarkBound(bound.first, bound.last, e);
  return e;
}

void CondParser::MarkBound(size_t first, size_t last, CondExpr& e) const {
  const Token& at = ts_.tokens[first];
  e.bound_at = {at.line, at.column, ts_.Folded(first, last)};
  e.bound_name = std::string(ts_.Text(first));
}

// `device_arch in sm_version` where sm_version is a parameter: decided by the call's argument.
bool CondParser::ParamTest(size_t i, size_t j, size_t b, size_t& next, CondExpr& out) const {
  if (!params_ || j != i + 1) return false;
  size_t k = j;
  Compare op{};
  if (ts_.Is(k, "not") && ts_.Is(k + 1, "in"))
    op = Compare::kNotIn, k += 2;
  else if (ts_.Is(k, "in"))
    op = Compare::kIn, ++k;
  else if (ts_.Is(k, "=="))
    op = Compare::kEq, ++k;
  else
    return false;
  if (!ts_.IsName(k) || !EndsOperand(k + 1, b)) return false;
  auto p = std::find(params_->begin(), params_->end(), ts_.Text(k));
  if (p == params_->end()) return false;
  const LowerName lowered(ts_.Text(i));
  const std::string_view lower = lowered;
  const bool hinted = lower.find("arch") != std::string::npos || lower.find("sm") != std::string::npos ||
                      lower.find("cap") != std::string::npos || lower == "cc" || lower.ends_with("_cc");
  if (!hinted) return false;
  out.kind = CondExpr::Kind::kParamTest;
  out.param = static_cast<int>(p - params_->begin());
  out.op = op;
  const Token& at = ts_.tokens[i];
  out.where = {at.line, at.column, ts_.Folded(i, k + 1)};
  next = k + 1;
  return true;
}

void CondParser::Atom(size_t& i, size_t b, CondExpr& out) {
  if (i >= b) return;
  if (auto g = gate_at_.find(i); g != gate_at_.end() && gates_[g->second].last_token <= b) {
    out.kind = CondExpr::Kind::kGate;
    out.gate = g->second;
    i = gates_[g->second].last_token;
    if (!EndsOperand(i, b)) i = SkipOperand(i, b), out = Unknown();  // `major >= 9 == flag`
    return;
  }
  if (ts_.Is(i, "(") && ts_.match[i] < b) {
    const size_t close = ts_.match[i];
    size_t inner = i + 1;
    Or(inner, close, out);
    if (inner != close) out = Unknown();
    i = close + 1;
    if (!EndsOperand(i, b)) i = SkipOperand(i, b), out = Unknown();
    return;
  }
  if (ts_.Is(i, "True") || ts_.Is(i, "False")) {
    out = Const(ts_.Is(i, "True") ? Tri::kTrue : Tri::kFalse);
    ++i;
    if (!EndsOperand(i, b)) i = SkipOperand(i, b), out = Unknown();
    return;
  }
  if (ts_.IsName(i)) {
    const size_t j = PrimaryEnd(ts_, i, b);
    size_t next = j;
    if (ParamTest(i, j, b, next, out)) {
      i = next;
      return;
    }
    if (EndsOperand(j, b)) {
      if (IsCallee(i, j)) {
        Call(i, j, out);
        i = j;
        return;
      }
      if (j == i + 1 && bound_) {
        auto found = bound_->find(BoundKey(key_, *scope_, ts_.Text(i)));
        if (found != bound_->end()) {
          i = j;
          out = Resolve(found->second);
          return;
        }
      }
    }
  }
  i = SkipOperand(i, b);  // `out` is still Unknown: nothing above wrote it on the way here
}

}  // namespace archpatch::python
