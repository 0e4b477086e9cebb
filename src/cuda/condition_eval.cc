// Evaluate: the value of a parsed condition in one preprocessing pass, as GCC's cpp computes it,
// with Tri::kUnknown wherever a macro archpatch cannot know decides the outcome.
//
// Fast path: walk the tree as written, reading each macro whose replacement is one number (the
// arch macros, -D NAME=VAL). Anything else (an empty or expression replacement) takes the slow
// path: expand the tokens like cpp, re-parse, evaluate.
#include <cctype>
#include <set>

#include "cuda/condition.h"
#include "cuda/condition_literal.h"
#include "cuda/condition_parser.h"

namespace archpatch::cuda {
namespace {

// A value of the #if arithmetic: intmax_t or uintmax_t bits, or unknown.
struct Num {
  bool known = true;
  uintmax_t bits = 0;
  bool is_unsigned = false;

  intmax_t s() const { return static_cast<intmax_t>(bits); }
  bool truth() const { return bits != 0; }
  static Num Unknown() { return Num{false, 0, false}; }
  static Num Int(intmax_t v) { return Num{true, static_cast<uintmax_t>(v), false}; }
};

struct NeedsExpansion {};  // thrown by the fast path when a replacement is not one number

constexpr size_t kMaxExpandedTokens = 100000;  // -D chains that blow up become unknown

class Evaluator {
 public:
  // `expanded`: every macro was already replaced; identifiers left are unknown macros.
  Evaluator(const Condition& c, const MacroLookup& lookup, bool expanded)
      : c_(c), lookup_(lookup), expanded_(expanded) {}

  Tri Run() {
    const Num v = Eval(c_.root_index());
    if (failed_ || !v.known) return Tri::kUnknown;
    return TriOf(v.truth());
  }

 private:
  Num Eval(int index) {
    const ConditionNode& n = c_.node(index);
    switch (n.kind) {
      case ConditionNode::Kind::kNumber: return Num{true, static_cast<uintmax_t>(n.value), n.is_unsigned};
      case ConditionNode::Kind::kIdentifier: return expanded_ ? Num::Unknown() : Resolve(n.name, 0);
      case ConditionNode::Kind::kDefined: return Defined(n.name);
      case ConditionNode::Kind::kCall: return Num::Unknown();
      case ConditionNode::Kind::kParen: return Eval(n.children[0]);
      case ConditionNode::Kind::kUnary: return Unary(n.op, Eval(n.children[0]));
      case ConditionNode::Kind::kTernary: return Ternary(n);
      case ConditionNode::Kind::kBinary: return Binary(n);
    }
    return Num::Unknown();
  }

  Num Defined(const std::string& name) {
    const MacroValue v = lookup_(name);
    if (v.state == MacroValue::State::kUnknown) return Num::Unknown();
    return Num::Int(v.state == MacroValue::State::kDefined ? 1 : 0);
  }

  // A macro read in the fast path: undefined is 0; a replacement must be one number or name.
  Num Resolve(const std::string& name, int depth) {
    if (name == "true" || name == "false") return Num::Int(name == "true");
    const MacroValue v = lookup_(name);
    if (v.state == MacroValue::State::kUndefined) return Num::Int(0);
    if (v.state == MacroValue::State::kUnknown) return Num::Unknown();
    if (!v.replacement.empty() && std::isdigit(static_cast<unsigned char>(v.replacement[0]))) {
      // The common case (1200, 13, 201703L): one literal, no need to lex.
      if (Result<LiteralValue> lit = InterpretInteger(v.replacement)) return Num{true, lit->bits, lit->is_unsigned};
    }
    Result<std::vector<CondToken>> tokens = LexCondition(v.replacement);
    if (!tokens || tokens->size() != 1 || depth > 32) throw NeedsExpansion{};
    const CondToken& t = tokens->front();
    if (t.kind == CondToken::Kind::kIdentifier && t.text != "defined" && t.text != name)
      return Resolve(t.text, depth + 1);
    if (t.kind != CondToken::Kind::kNumber && t.kind != CondToken::Kind::kChar) throw NeedsExpansion{};
    Result<LiteralValue> lit = t.kind == CondToken::Kind::kNumber ? InterpretInteger(t.text) : InterpretChar(t.text);
    if (!lit) throw NeedsExpansion{};
    return Num{true, lit->bits, lit->is_unsigned};
  }

  static Num Unary(const std::string& op, Num a) {
    if (!a.known) return a;
    if (op == "!") return Num::Int(!a.truth());
    if (op == "~") return Num{true, ~a.bits, a.is_unsigned};
    if (op == "-") return Num{true, uintmax_t{0} - a.bits, a.is_unsigned};
    return a;  // unary +
  }

  Num Ternary(const ConditionNode& n) {
    const Num cond = Eval(n.children[0]);
    // cpp evaluates only the chosen branch; errors in the other do not count, its type does.
    if (cond.known) {
      const int chosen = n.children[cond.truth() ? 1 : 2], other = n.children[cond.truth() ? 2 : 1];
      Num value = Eval(chosen);
      const Num skipped = Quiet(other);
      value.is_unsigned = value.is_unsigned || (skipped.known && skipped.is_unsigned);
      return value;
    }
    const Num a = Eval(n.children[1]), b = Eval(n.children[2]);
    if (a.known && b.known && a.bits == b.bits) return Num{true, a.bits, a.is_unsigned || b.is_unsigned};
    return Num::Unknown();
  }

  // Evaluates a subexpression cpp skips: its errors are not errors.
  Num Quiet(int index) {
    const bool was_failed = failed_;
    const Num v = Eval(index);
    failed_ = was_failed;
    return v;
  }

  Num Binary(const ConditionNode& n) {
    const std::string& op = n.op;
    if (op == "&&" || op == "||") return Logical(op == "&&", n);
    const Num a = Eval(n.children[0]);
    const Num b = Eval(n.children[1]);
    if (op == ",") return b;
    if (!a.known || !b.known) {
      if ((op == "/" || op == "%") && b.known && b.bits == 0) failed_ = true;
      return Num::Unknown();
    }
    if (op == "<<" || op == ">>") return Shift(op == "<<", a, b);
    const bool u = a.is_unsigned || b.is_unsigned;
    if (op == "*") return Num{true, a.bits * b.bits, u};
    if (op == "+") return Num{true, a.bits + b.bits, u};
    if (op == "-") return Num{true, a.bits - b.bits, u};
    if (op == "&") return Num{true, a.bits & b.bits, u};
    if (op == "|") return Num{true, a.bits | b.bits, u};
    if (op == "^") return Num{true, a.bits ^ b.bits, u};
    if (op == "/" || op == "%") return Divide(op == "/", a, b, u);
    return Num::Int(Compare(op, a, b, u));
  }

  // &&, || with short-circuit; Kleene logic when one side is unknown (`X && 0` is false).
  Num Logical(bool is_and, const ConditionNode& n) {
    const Num a = Eval(n.children[0]);
    if (a.known && a.truth() != is_and) return Num::Int(!is_and);
    const Num b = Eval(n.children[1]);
    if (b.known && b.truth() != is_and) return Num::Int(!is_and);
    if (!a.known || !b.known) return Num::Unknown();
    return Num::Int(is_and);
  }

  static bool Compare(const std::string& op, Num a, Num b, bool u) {
    const bool lt = u ? a.bits < b.bits : a.s() < b.s();
    const bool gt = u ? a.bits > b.bits : a.s() > b.s();
    if (op == "<") return lt;
    if (op == ">") return gt;
    if (op == "<=") return !gt;
    if (op == ">=") return !lt;
    if (op == "==") return a.bits == b.bits;
    return a.bits != b.bits;  // !=
  }

  Num Divide(bool quotient, Num a, Num b, bool u) {
    if (b.bits == 0) {
      failed_ = true;  // cpp: "division by zero in #if"
      return Num::Unknown();
    }
    if (u) return Num{true, quotient ? a.bits / b.bits : a.bits % b.bits, true};
    if (a.s() == INTMAX_MIN && b.s() == -1) return Num::Int(quotient ? INTMAX_MIN : 0);  // wraps, as cpp
    return Num::Int(quotient ? a.s() / b.s() : a.s() % b.s());
  }

  // The result has the left operand's type; a negative count shifts the other way (as cpp).
  static Num Shift(bool left, Num a, Num b) {
    uintmax_t count = b.bits;
    if (!b.is_unsigned && b.s() < 0) {
      left = !left;
      count = uintmax_t{0} - b.bits;
    }
    const bool negative = !a.is_unsigned && a.s() < 0;
    if (count >= 64) return Num{true, left || !negative ? 0 : UINTMAX_MAX, a.is_unsigned};
    if (left) return Num{true, a.bits << count, a.is_unsigned};
    if (negative) return Num{true, static_cast<uintmax_t>(a.s() >> count), false};
    return Num{true, a.bits >> count, a.is_unsigned};
  }

  const Condition& c_;
  const MacroLookup& lookup_;
  bool expanded_;
  bool failed_ = false;
};

// cpp's expansion of the condition's tokens: `defined` resolved first, object-like macros
// replaced recursively (a name is not re-expanded inside its own replacement), calls and
// unknown macros left as one identifier token that evaluates to unknown.
class Expander {
 public:
  explicit Expander(const MacroLookup& lookup) : lookup_(lookup) {}

  bool Expand(const std::vector<CondToken>& in, std::set<std::string>& hidden, std::vector<CondToken>& out) {
    for (size_t i = 0; i < in.size(); ++i) {
      if (out.size() > kMaxExpandedTokens) return false;
      const CondToken& t = in[i];
      if (t.kind != CondToken::Kind::kIdentifier || t.text == "true" || t.text == "false") {
        out.push_back(t);
      } else if (t.text == "defined") {
        i = ExpandDefined(in, i, out);
      } else if (!ExpandName(in, i, hidden, out)) {
        return false;
      }
    }
    return true;
  }

 private:
  static CondToken Number(const CondToken& at, std::string_view value) {
    return CondToken{CondToken::Kind::kNumber, std::string(value), at.begin, at.end};
  }

  size_t ExpandDefined(const std::vector<CondToken>& in, size_t i, std::vector<CondToken>& out) {
    const bool paren = i + 1 < in.size() && in[i + 1].text == "(";
    const size_t name = i + (paren ? 2 : 1);
    const bool well_formed = name < in.size() && in[name].kind == CondToken::Kind::kIdentifier &&
                             (!paren || (name + 1 < in.size() && in[name + 1].text == ")"));
    if (!well_formed) {
      out.push_back(in[i]);  // the parser reports it
      return i;
    }
    const MacroValue v = lookup_(in[name].text);
    if (v.state == MacroValue::State::kUnknown) {
      out.push_back(in[name]);
    } else {
      out.push_back(Number(in[i], v.state == MacroValue::State::kDefined ? "1" : "0"));
    }
    return paren ? name + 1 : name;
  }

  // Skips a balanced (...) after position i, if there is one; returns the last index consumed.
  static size_t SkipCall(const std::vector<CondToken>& in, size_t i) {
    if (i + 1 >= in.size() || in[i + 1].text != "(") return i;
    int depth = 0;
    for (size_t j = i + 1; j < in.size(); ++j) {
      depth += in[j].text == "(" ? 1 : in[j].text == ")" ? -1 : 0;
      if (depth == 0) return j;
    }
    return i;
  }

  bool ExpandName(const std::vector<CondToken>& in, size_t& i, std::set<std::string>& hidden,
                  std::vector<CondToken>& out) {
    const CondToken& t = in[i];
    if (hidden.count(t.text)) {
      out.push_back(Number(t, "0"));  // a macro left unexpanded inside itself reads as 0
      return true;
    }
    const MacroValue v = lookup_(t.text);
    if (v.state == MacroValue::State::kUndefined) {
      out.push_back(Number(t, "0"));
      return true;
    }
    if (v.state == MacroValue::State::kUnknown) {
      out.push_back(t);
      i = SkipCall(in, i);  // FOO(x) of an unknown function-like macro: one unknown value
      return true;
    }
    Result<std::vector<CondToken>> body = LexCondition(v.replacement);
    if (!body) return false;
    for (CondToken& b : *body) b.begin = t.begin, b.end = t.end;
    hidden.insert(t.text);
    const bool ok = Expand(*body, hidden, out);
    hidden.erase(t.text);
    return ok;
  }

  const MacroLookup& lookup_;
};

Tri EvaluateExpanded(const Condition& condition, const MacroLookup& lookup) {
  Result<std::vector<CondToken>> tokens = LexCondition(condition.text());
  if (!tokens) return Tri::kUnknown;
  std::vector<CondToken> expanded;
  std::set<std::string> hidden;
  if (!Expander(lookup).Expand(*tokens, hidden, expanded)) return Tri::kUnknown;
  Result<Condition> reparsed = ConditionParser(condition.text(), std::move(expanded)).Parse();
  if (!reparsed) return Tri::kUnknown;  // cpp would reject the expansion (e.g. `#if EMPTY`)
  return Evaluator(*reparsed, lookup, true).Run();
}

}  // namespace

Tri Evaluate(const Condition& condition, const MacroLookup& lookup) {
  try {
    return Evaluator(condition, lookup, false).Run();
  } catch (const NeedsExpansion&) {
    return EvaluateExpanded(condition, lookup);
  }
}

std::vector<Tri> EvaluatePerArch(const Condition& condition, const std::vector<arch::Arch>& arches,
                                 const MacroEnv& env) {
  std::vector<Tri> out;
  out.reserve(arches.size());
  for (const arch::Arch& a : arches) out.push_back(Evaluate(condition, ArchLookup(a, env)));
  return out;
}

}  // namespace archpatch::cuda
