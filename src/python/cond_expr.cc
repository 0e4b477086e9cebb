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
  CondExpr e = Or(i, b);
  if (i != b) return Unknown();
  return e;  // moved, not copied as `i == b ? e : Unknown()` did
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

// Most operands stand alone (every assignment of a module is parsed): they are returned as they
// are, with no list built around them (an initializer list would also copy them).
CondExpr CondParser::Or(size_t& i, size_t b) {
  CondExpr first = And(i, b);
  if (i >= b || !ts_.Is(i, "or")) return first;
  std::vector<CondExpr> kids;
  kids.push_back(std::move(first));
  while (i < b && ts_.Is(i, "or")) kids.push_back(And(++i, b));
  return Node(CondExpr::Kind::kOr, std::move(kids));
}

CondExpr CondParser::And(size_t& i, size_t b) {
  CondExpr first = Not(i, b);
  if (i >= b || !ts_.Is(i, "and")) return first;
  std::vector<CondExpr> kids;
  kids.push_back(std::move(first));
  while (i < b && ts_.Is(i, "and")) kids.push_back(Not(++i, b));
  return Node(CondExpr::Kind::kAnd, std::move(kids));
}

CondExpr CondParser::Not(size_t& i, size_t b) {
  if (i < b && ts_.Is(i, "not")) return Node(CondExpr::Kind::kNot, {Not(++i, b)});
  return Atom(i, b);
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

CondExpr CondParser::Atom(size_t& i, size_t b) {
  if (i >= b) return Unknown();
  if (auto g = gate_at_.find(i); g != gate_at_.end() && gates_[g->second].last_token <= b) {
    CondExpr e;
    e.kind = CondExpr::Kind::kGate;
    e.gate = g->second;
    i = gates_[g->second].last_token;
    if (!EndsOperand(i, b)) i = SkipOperand(i, b), e = Unknown();  // `major >= 9 == flag`
    return e;
  }
  if (ts_.Is(i, "(") && ts_.match[i] < b) {
    const size_t close = ts_.match[i];
    size_t inner = i + 1;
    CondExpr e = Or(inner, close);
    if (inner != close) e = Unknown();
    i = close + 1;
    if (!EndsOperand(i, b)) i = SkipOperand(i, b), e = Unknown();
    return e;
  }
  if (ts_.Is(i, "True") || ts_.Is(i, "False")) {
    CondExpr e = Const(ts_.Is(i, "True") ? Tri::kTrue : Tri::kFalse);
    ++i;
    if (!EndsOperand(i, b)) i = SkipOperand(i, b), e = Unknown();
    return e;
  }
  if (ts_.IsName(i)) {
    const size_t j = PrimaryEnd(ts_, i, b);
    CondExpr e;
    size_t next = j;
    if (ParamTest(i, j, b, next, e)) return i = next, e;
    if (EndsOperand(j, b)) {
      if (IsCallee(i, j)) {
        Call(i, j, e);
        i = j;
        return e;
      }
      if (j == i + 1 && bound_) {
        auto found = bound_->find(BoundKey(key_, *scope_, ts_.Text(i)));
        if (found != bound_->end()) return i = j, Resolve(found->second);
      }
    }
  }
  i = SkipOperand(i, b);
  return Unknown();
}

}  // namespace archpatch::python
