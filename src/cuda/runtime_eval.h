// The expression evaluator of the C++ token pass (runtime_tokens.cc, its only user): a view of
// the code tokens with matched brackets, and per-arch evaluation of a condition over capability
// names, `bool` names bound in the file and integer constants from its headers.
#pragma once

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "arch/arch.h"
#include "cuda/header_constants.h"
#include "cuda/runtime_gates.h"
#include "cuda/tokens.h"
#include "util/tri.h"

namespace archpatch::cuda::runtime_detail {

inline constexpr int kMaxBoundDepth = 4;  // `bool a = b && c;` chains

inline bool IsErrorCall(std::string_view name) {
  const std::string upper = UpperCase(name);
  return upper.find("THROW") != std::string::npos || upper.find("UNREACHABLE") != std::string::npos ||
         upper.find("ERROR") != std::string::npos || upper == "ABORT" || upper == "EXIT" || upper == "FATAL";
}

// A capability value: the names runtime_gates.h lists, also behind a `get` prefix (get_arch_major).
inline bool IsCapabilityRef(std::string_view name) {
  if (IsCapabilityName(name)) return true;
  if (name.starts_with("get_")) return IsCapabilityName(name.substr(4));
  if (name.starts_with("get")) return IsCapabilityName(name.substr(3));
  return false;
}

// Tokens without comments and preprocessor lines, with bracket partners.
struct View {
  std::string_view src;
  std::vector<const Token*> t;
  std::vector<size_t> match;
  // The directives left out: the index of each one's `#` in the file's tokens, one past its end.
  std::vector<std::pair<size_t, size_t>> directives = {};
  // Set when the tokens are a macro's expansion: the file offset of the call they stand for.
  std::optional<size_t> expanded_at = std::nullopt;

  std::string_view Text(size_t i) const { return i < t.size() ? t[i]->Spelling(src) : std::string_view(); }
  // Where token i stands in the file.
  size_t Offset(size_t i) const { return expanded_at ? *expanded_at : i < t.size() ? t[i]->begin : src.size(); }
  bool Is(size_t i, std::string_view s) const { return i < t.size() && Text(i) == s; }
  bool IsIdent(size_t i) const { return i < t.size() && t[i]->kind == Token::Kind::kIdentifier; }
};

// Whether the `#` token `hash` starts a directive (nothing but blanks before it on its line).
inline bool StartsDirective(std::string_view contents, const Token& hash) {
  if (hash.Spelling(contents) != "#") return false;
  size_t line_start = contents.rfind('\n', hash.begin == 0 ? 0 : hash.begin - 1);
  line_start = line_start == std::string_view::npos ? 0 : line_start + 1;
  return contents.substr(line_start, hash.begin - line_start).find_first_not_of(" \t") == std::string_view::npos;
}

// One past the directive starting at `begin`, with its backslash continuations.
inline size_t DirectiveEnd(std::string_view contents, size_t begin) {
  size_t end = begin;
  while (end < contents.size()) {
    size_t nl = contents.find('\n', end);
    if (nl == std::string_view::npos) return contents.size();
    size_t last = nl;
    while (last > end && (contents[last - 1] == '\r' || contents[last - 1] == ' ')) --last;
    end = nl + 1;
    if (last == 0 || contents[last - 1] != '\\') break;
  }
  return end;
}

inline View MakeView(std::string_view contents, const std::vector<Token>& tokens) {
  View v{contents, {}, {}};
  size_t skip_until = 0;
  for (const Token& tok : tokens) {
    if (tok.kind == Token::Kind::kComment || tok.begin < skip_until) continue;
    if (StartsDirective(contents, tok)) {
      skip_until = DirectiveEnd(contents, tok.begin);
      v.directives.emplace_back(static_cast<size_t>(&tok - tokens.data()), skip_until);
      continue;
    }
    v.t.push_back(&tok);
  }
  v.match.assign(v.t.size(), std::string_view::npos);
  std::vector<size_t> open;
  for (size_t i = 0; i < v.t.size(); ++i) {
    std::string_view s = v.Text(i);
    if (s == "(" || s == "[" || s == "{")
      open.push_back(i);
    else if ((s == ")" || s == "]" || s == "}") && !open.empty())
      v.match[i] = open.back(), v.match[open.back()] = i, open.pop_back();
  }
  return v;
}

struct Val {
  enum class Kind { kInt, kTri, kScalar, kUnknown } kind = Kind::kUnknown;
  long long n = 0;
  Tri t = Tri::kUnknown;
  bool capability = false;  // derived from a capability
};
inline Val Int(long long n, bool cap = false) { return {Val::Kind::kInt, n, Tri::kUnknown, cap}; }
inline Val Truth(Tri t, bool cap = false) { return {Val::Kind::kTri, 0, t, cap}; }

inline Tri AsTri(const Val& v) {
  if (v.kind == Val::Kind::kTri) return v.t;
  if (v.kind == Val::Kind::kInt) return TriOf(v.n != 0);
  return Tri::kUnknown;
}

// The scale rule of docs/audit.md: below 30 a major, below 300 an SM number, else __CUDA_ARCH__.
inline long long Scaled(const arch::Arch& a, long long with) {
  if (with < 30) return a.major;
  if (with < 300) return a.major * 10 + a.minor;
  return a.major * 100 + a.minor * 10;
}

// The binary operators' precedences, 0 for any other token: asked of every token after an
// operand, so by length and bytes rather than through a map of strings.
inline int Precedence(std::string_view op) {
  if (op.size() == 1) {
    switch (op[0]) {
      case '|': return 3;
      case '^': return 4;
      case '&': return 5;
      case '<':
      case '>': return 7;
      case '+':
      case '-': return 9;
      case '*':
      case '/':
      case '%': return 10;
      default: return 0;
    }
  }
  if (op.size() == 2) {
    if (op == "||" || op == "or") return 1;
    if (op == "&&") return 2;
    if (op == "==" || op == "!=") return 6;
    if (op == "<=" || op == ">=") return 7;
    if (op == "<<" || op == ">>") return 8;
    return 0;
  }
  return op == "and" ? 2 : 0;
}

struct Bound {  // `bool is_sm90 = <expr>;`
  size_t begin = 0, end = 0, stmt = 0;
};

class Evaluator {
 public:
  // `constants`: null reads no named constant (the capability probe of TokenScan::Record).
  Evaluator(const View& v, const arch::Arch& a, const std::map<std::string, Bound, std::less<>>& bound,
            const ConstantLookup* constants, std::vector<std::pair<std::string, NamedConstant>>& used,
            std::vector<std::string>& bound_used)
      : v_(v), arch_(a), bound_(bound), constants_(constants), used_(used), bound_used_(bound_used) {}
  bool compared = false;  // a capability was compared with a number
  // A capability was read somewhere in the expression. Which tokens are read does not depend on
  // the arch or on constants' values, so when this stays false for one arch without constants,
  // no arch can compare a capability.
  bool saw_capability = false;

  Val Eval(size_t a, size_t b) {
    size_t i = a;
    Val out = Expr(i, b, 1);
    return i == b ? out : Val{};
  }
  Val Compare(std::string_view op, Val l, Val r) {
    const bool cap = l.capability || r.capability;
    if (l.kind == Val::Kind::kScalar && r.kind == Val::Kind::kInt) l = Int(Scaled(arch_, r.n), true);
    if (r.kind == Val::Kind::kScalar && l.kind == Val::Kind::kInt) r = Int(Scaled(arch_, l.n), true);
    if (l.kind != Val::Kind::kInt || r.kind != Val::Kind::kInt) return Truth(Tri::kUnknown, cap);
    bool res = op == "=="   ? l.n == r.n
               : op == "!=" ? l.n != r.n
               : op == "<"  ? l.n < r.n
               : op == ">"  ? l.n > r.n
               : op == "<=" ? l.n <= r.n
                            : l.n >= r.n;
    if (cap) compared = true;
    return Truth(TriOf(res), cap);
  }

 private:
  Val Expr(size_t& i, size_t b, int min_prec) {
    Val l = Unary(i, b);
    while (i < b) {
      const std::string_view op = v_.Text(i);
      const int prec = Precedence(op);
      if (prec == 0 || prec < min_prec) break;
      ++i;
      Val r = Expr(i, b, prec + 1);
      l = Apply(op, l, r);
    }
    return l;
  }

  Val Apply(std::string_view op, Val l, Val r) {
    const bool cap = l.capability || r.capability;
    if (op == "&&" || op == "and") return Truth(TriAnd(AsTri(l), AsTri(r)), cap);
    if (op == "||" || op == "or") return Truth(TriOr(AsTri(l), AsTri(r)), cap);
    if (Precedence(op) == 6 || Precedence(op) == 7) return Compare(op, l, r);
    // `sm_version / 10`, `arch % 10`: arithmetic on the SM number (major * 10 + minor).
    if (l.kind == Val::Kind::kScalar && r.kind == Val::Kind::kInt && (op == "/" || op == "%")) {
      l = Int(arch_.major * 10 + arch_.minor, true);
    }
    if (l.kind != Val::Kind::kInt || r.kind != Val::Kind::kInt) return Val{Val::Kind::kUnknown, 0, Tri::kUnknown, cap};
    long long n = op == "+"   ? l.n + r.n
                  : op == "-" ? l.n - r.n
                  : op == "*" ? l.n * r.n
                  : op == "/" ? (r.n ? l.n / r.n : 0)
                  : op == "%" ? (r.n ? l.n % r.n : 0)
                              : 0;
    if (op != "+" && op != "-" && op != "*" && op != "/" && op != "%")
      return Val{Val::Kind::kUnknown, 0, Tri::kUnknown, cap};
    return Int(n, cap);
  }

  Val Unary(size_t& i, size_t b) {
    if (i >= b) return {};
    if (v_.Is(i, "!") || v_.Is(i, "not")) {
      Val x = Unary(++i, b);
      Tri t = AsTri(x);
      return x.kind == Val::Kind::kUnknown || x.kind == Val::Kind::kScalar
                 ? Val{Val::Kind::kUnknown, 0, Tri::kUnknown, x.capability}
                 : Truth(TriNot(t), x.capability);
    }
    if (v_.Is(i, "-")) {
      Val x = Unary(++i, b);
      return x.kind == Val::Kind::kInt ? Int(-x.n, x.capability) : Val{};
    }
    return Primary(i, b);
  }

  // std::get<N>(device_props), static_cast<int>(x), (int)x, ( expr ), literals, name chains.
  Val Primary(size_t& i, size_t b) {
    if (v_.Is(i, "(") && v_.match[i] < b) {
      const size_t close = v_.match[i];
      if (close == i + 2 && (v_.t[i + 1]->kind == Token::Kind::kKeyword || v_.IsIdent(i + 1)) && close + 1 < b &&
          !Precedence(v_.Text(close + 1)) && !v_.Is(close + 1, ")")) {
        i = close + 1;  // a C-style cast
        return Unary(i, b);
      }
      Val x = Eval(i + 1, close);
      i = close + 1;
      return x;
    }
    if (v_.Is(i, "true") || v_.Is(i, "false")) return Truth(v_.Is(i++, "true") ? Tri::kTrue : Tri::kFalse);
    if (i < v_.t.size() && v_.t[i]->kind == Token::Kind::kLiteral) {
      std::string_view s = v_.Text(i++);
      if (!s.empty() && (s.front() == '"' || s.back() == '"')) return Truth(Tri::kTrue);  // `cond && "why"`
      while (!s.empty() && std::isalpha(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
      long long n = 0;
      int base = s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') ? 16 : 10;
      try {
        n = std::stoll(std::string(s), nullptr, base);
      } catch (...) {
        return {};
      }
      return Int(n);
    }
    if (!v_.IsIdent(i) && !v_.Is(i, "::")) return i = b, Val{};
    return Chain(i, b);
  }

  Val Chain(size_t& i, size_t b) {
    // std::get<N>(x)
    size_t k = i;
    if (v_.Is(k, "std") && v_.Is(k + 1, "::")) k += 2;
    if ((v_.Is(k, "get") || v_.Is(k, "static_cast")) && v_.Is(k + 1, "<")) {
      size_t close = k + 2;
      while (close < b && !v_.Is(close, ">")) ++close;
      if (close + 1 < b && v_.Is(close + 1, "(") && v_.match[close + 1] < b) {
        const size_t paren = close + 1, end = v_.match[paren];
        i = end + 1;
        if (v_.Is(k, "static_cast")) return Eval(paren + 1, end);
        std::string_view index = v_.Text(k + 2);
        std::string inner;
        for (size_t m = paren + 1; m < end; ++m) inner += std::string(v_.Text(m));
        const std::string lower = UpperCase(inner);
        const bool capability = lower.find("PROP") != std::string::npos || lower.find("CAPAB") != std::string::npos ||
                                lower.find("ARCH") != std::string::npos || lower.find("SM") != std::string::npos ||
                                lower.find("VERSION") != std::string::npos || lower.find("CC") != std::string::npos;
        if (!capability || (index != "0" && index != "1")) return {};
        saw_capability = true;
        return Int(index == "0" ? arch_.major : arch_.minor, true);
      }
    }
    const size_t at = v_.Offset(i);  // where the name is read, for the constants in scope there
    std::string_view last;           // into the file or the expansion, which outlive the evaluation
    size_t names = 0;
    while (i < b) {
      if (v_.IsIdent(i))
        last = v_.Text(i++), ++names;
      else if (v_.Is(i, "::") || v_.Is(i, ".") || v_.Is(i, "->"))
        ++i;
      else if ((v_.Is(i, "(") || v_.Is(i, "[")) && v_.match[i] < b)
        i = v_.match[i] + 1;
      else
        break;
    }
    if (last.empty()) return {};
    if (IsCapabilityRef(last)) {
      saw_capability = true;
      const std::string upper = UpperCase(last);
      if (upper.find("MINOR") != std::string::npos) return Int(arch_.minor, true);
      if (upper.find("MAJOR") != std::string::npos) return Int(arch_.major, true);
      return {Val::Kind::kScalar, 0, Tri::kUnknown, true};
    }
    if (names == 1 && depth_ < kMaxBoundDepth) {
      if (auto it = bound_.find(last); it != bound_.end()) {
        ++depth_;
        Val x = Eval(it->second.begin, it->second.end);
        --depth_;
        if (x.capability && std::find(bound_used_.begin(), bound_used_.end(), last) == bound_used_.end()) {
          bound_used_.emplace_back(last);
        }
        return x;
      }
    }
    if (!constants_) return {};
    if (std::optional<NamedConstant> c = constants_->Find(last, at)) {
      if (std::none_of(used_.begin(), used_.end(), [&](const auto& u) { return u.first == last; }))
        used_.emplace_back(std::string(last), *c);
      return Int(c->value);
    }
    return {};
  }

  const View& v_;
  const arch::Arch& arch_;
  const std::map<std::string, Bound, std::less<>>& bound_;
  const ConstantLookup* constants_;
  std::vector<std::pair<std::string, NamedConstant>>& used_;
  std::vector<std::string>& bound_used_;
  int depth_ = 0;
};

}  // namespace archpatch::cuda::runtime_detail
