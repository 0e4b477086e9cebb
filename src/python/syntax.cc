#include "python/syntax.h"

#include <cctype>
#include <charconv>

namespace archpatch::python {
namespace {

constexpr int kMaxLiteralDepth = 64;

// Whether `text` holds no line break, tab, form feed or two spaces in a row. One pass: find_first_of
// tested each byte against the set through a call.
bool IsFolded(std::string_view text) {
  char previous = '\0';
  for (const char c : text) {
    if (c == '\r' || c == '\n' || c == '\t' || c == '\f' || (c == ' ' && previous == ' ')) return false;
    previous = c;
  }
  return true;
}

bool IsOpen(std::string_view t) { return t == "(" || t == "[" || t == "{"; }
bool IsClose(std::string_view t) { return t == ")" || t == "]" || t == "}"; }

bool StartsDef(const TokenStream& ts, const LogicalLine& line, size_t& name_at) {
  size_t i = line.first;
  if (ts.Is(i, "async")) ++i;
  if (!(ts.Is(i, "def") || ts.Is(i, "class")) || !ts.IsName(i + 1) || i + 1 >= line.last) return false;
  name_at = i + 1;
  return true;
}

std::optional<long long> ParseInt(std::string_view text) {
  std::string digits;
  for (char c : text) {
    if (c != '_') digits += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  int base = 10;
  std::string_view body = digits;
  if (body.size() > 2 && body[0] == '0' && (body[1] == 'x' || body[1] == 'o' || body[1] == 'b')) {
    base = body[1] == 'x' ? 16 : body[1] == 'o' ? 8 : 2;
    body.remove_prefix(2);
  }
  long long value = 0;
  auto [ptr, ec] = std::from_chars(body.data(), body.data() + body.size(), value, base);
  if (ec != std::errc() || ptr != body.data() + body.size()) return std::nullopt;
  return value;
}

// The index after a collection element that is not a literal: up to the next ',' or the
// closing bracket at this level.
size_t SkipElement(const TokenStream& ts, size_t i, size_t end) {
  while (i < end && !ts.Is(i, ",") && !IsClose(ts.Text(i))) {
    i = IsOpen(ts.Text(i)) && ts.tokens[i].kind == TokenKind::kOp ? ts.match[i] + 1 : i + 1;
  }
  return i;
}

// `Arch.sm_100a`, `base_dsl.Arch.sm_120f`: a dotted name whose last part is an arch name
// (sm_/compute_ prefix) and whose part before it names an arch enum. The last part's index, or 0.
size_t EnumArchMember(const TokenStream& ts, size_t i, size_t end) {
  size_t j = i;
  while (j + 2 < end && ts.IsName(j) && ts.Is(j + 1, ".") && ts.IsName(j + 2)) j += 2;
  if (j == i || !ts.IsName(j) || ts.Is(j + 1, "(") || ts.Is(j + 1, ".")) return 0;
  const std::string_view last = ts.Text(j), owner = ts.Text(j - 2);
  const bool arch_owner = owner.find("Arch") != std::string_view::npos || owner.find("arch") != std::string_view::npos;
  if (!arch_owner || !(last.starts_with("sm_") || last.starts_with("compute_"))) return 0;
  return j;
}

std::optional<Literal> ParseCollection(const TokenStream& ts, size_t i, size_t& next, const Bindings* bindings,
                                       int depth) {
  const std::string_view open = ts.Text(i);
  const size_t close = ts.match[i];
  Literal lit;
  lit.kind = open == "[" ? LiteralKind::kList : open == "{" ? LiteralKind::kSet : LiteralKind::kTuple;
  bool saw_comma = false;
  size_t j = i + 1;
  while (j < close) {
    size_t after = j;
    std::optional<Literal> item = ParseLiteral(ts, j, close, after, bindings, depth + 1);
    if (item && after < close && !ts.Is(after, ",")) item.reset();  // `9 + 1`, `x for x in ...`
    if (!item) {
      after = SkipElement(ts, j, close);
      Literal opaque;
      opaque.span = ts.Span(j, std::max(after, j + 1));
      opaque.first_token = j;
      opaque.last_token = after;
      item = opaque;
      for (size_t k = j; k < after; ++k) {
        if (ts.Is(k, "for") || ts.Is(k, ":")) return std::nullopt;  // a comprehension or a dict
      }
    }
    lit.items.push_back(std::move(*item));
    j = after;
    if (ts.Is(j, ",")) saw_comma = true, ++j;
  }
  // `(x)` is x itself, not a tuple.
  if (lit.kind == LiteralKind::kTuple && lit.items.size() == 1 && !saw_comma) {
    Literal inner = lit.items.front();
    if (inner.kind == LiteralKind::kOpaque) return std::nullopt;
    inner.parenthesized_scalar = true;
    next = close + 1;
    return inner;
  }
  if (lit.kind == LiteralKind::kSet && lit.items.empty()) return std::nullopt;  // {} is a dict
  lit.span = ts.Span(i, close + 1);
  lit.first_token = i;
  lit.last_token = close + 1;
  next = close + 1;
  return lit;
}

}  // namespace

TokenStream MakeStream(std::string_view source, std::vector<Token> tokens) {
  TokenStream ts{source, std::move(tokens), {}};
  ts.match.assign(ts.tokens.size(), std::string_view::npos);
  std::vector<size_t> open;
  for (size_t i = 0; i < ts.tokens.size(); ++i) {
    const Token& t = ts.tokens[i];
    if (t.kind != TokenKind::kOp || t.end - t.begin != 1) continue;  // every bracket is one byte
    const char c = source[t.begin];
    if (c == '(' || c == '[' || c == '{') open.push_back(i);
    if ((c == ')' || c == ']' || c == '}') && !open.empty()) {
      ts.match[i] = open.back();
      ts.match[open.back()] = i;
      open.pop_back();
    }
  }
  return ts;
}

std::string TokenStream::Folded(size_t first, size_t last) const {
  // Tokens on one physical line are parted by blanks only (a comment or a continuation would
  // hold a line break): when those blanks are single spaces the text is already folded.
  if (first < last && tokens[first].begin <= tokens[last - 1].end) {
    const std::string_view whole = source.substr(tokens[first].begin, tokens[last - 1].end - tokens[first].begin);
    if (IsFolded(whole)) {
      return std::string(whole);
    }
  }
  std::string out;
  // Folding only shortens: the bytes from the first token to the end of the last are enough.
  if (first < last && tokens[first].begin <= tokens[last - 1].end) {
    out.reserve(tokens[last - 1].end - tokens[first].begin);
  }
  for (size_t i = first; i < last; ++i) {
    if (i > first && tokens[i - 1].end < tokens[i].begin) {
      // A loop, not find_first_of: that called memchr for each byte of the gap (comments too).
      bool breaks = false;
      for (size_t k = tokens[i - 1].end; k < tokens[i].begin && !breaks; ++k) {
        breaks = source[k] == '\r' || source[k] == '\n';
      }
      const bool hug = breaks && (IsOpen(Text(i - 1)) || IsClose(Text(i)));
      if (!hug) out += ' ';
    }
    out += Text(i);
  }
  return out;
}

const std::vector<std::string>& Scope::names() const {
  static const std::vector<std::string> kModuleLevel;
  return names_ ? *names_ : kModuleLevel;
}

namespace {

// The end of the logical line starting at token `i` (its NEWLINE or END), and whether it holds
// strings only. It reads through locals so that the loop keeps the vector's bounds in registers.
size_t LineEnd(const std::vector<Token>& tokens, size_t i, bool& docstring) {
  const Token* const t = tokens.data();
  const size_t n = tokens.size();
  constexpr unsigned kEnds =
      (1U << static_cast<unsigned>(TokenKind::kNewline)) | (1U << static_cast<unsigned>(TokenKind::kEnd));
  auto ends = [&](size_t k) { return ((1U << static_cast<unsigned>(t[k].kind)) & kEnds) != 0; };
  // Strings only when the strings the line starts with (most lines start with none) reach its end.
  while (i < n && t[i].kind == TokenKind::kString) ++i;
  docstring = i >= n || ends(i);
  while (i < n && !ends(i)) ++i;
  return i;
}

}  // namespace

std::vector<LogicalLine> SplitLines(const TokenStream& ts) {
  std::vector<LogicalLine> lines;
  struct Open {
    int depth;
    Scope scope;  // the def/class's own scope, its name last
  };
  std::vector<Open> stack;
  int depth = 0;
  size_t i = 0;
  while (i < ts.tokens.size()) {
    const TokenKind kind = ts.tokens[i].kind;
    if (kind == TokenKind::kIndent || kind == TokenKind::kDedent) {
      depth += kind == TokenKind::kIndent ? 1 : -1;
      ++i;
      continue;
    }
    if (kind == TokenKind::kEnd || kind == TokenKind::kNewline) {
      ++i;
      continue;
    }
    LogicalLine line{i, i, depth, {}, true};
    line.last = LineEnd(ts.tokens, i, line.docstring);
    while (!stack.empty() && stack.back().depth >= depth) stack.pop_back();
    size_t name_at = 0;
    if (StartsDef(ts, line, name_at)) {
      std::vector<std::string> names = stack.empty() ? std::vector<std::string>{} : stack.back().scope.names();
      names.emplace_back(ts.Text(name_at));
      stack.push_back({depth, Scope(std::move(names))});
    }
    if (!stack.empty()) line.scope = stack.back().scope;
    lines.push_back(std::move(line));
    i = lines.back().last;
  }
  // Decorators belong to the def they decorate.
  for (size_t k = lines.size(); k-- > 0;) {
    if (!ts.Is(lines[k].first, "@") || k + 1 >= lines.size()) continue;
    size_t name_at = 0;
    const LogicalLine& next = lines[k + 1];
    if (next.depth == lines[k].depth && (ts.Is(next.first, "@") || StartsDef(ts, next, name_at))) {
      lines[k].scope = next.scope;
    }
  }
  return lines;
}

std::string ScopeName(const std::vector<std::string>& scope) {
  std::string out;
  for (const std::string& s : scope) {
    if (!out.empty()) out += '.';
    out += s;
  }
  return out;
}

size_t PrimaryEnd(const TokenStream& ts, size_t i, size_t end) {
  if (!ts.IsName(i) || i >= end) return i;
  size_t j = i + 1;
  while (j < end) {
    if (ts.Is(j, ".") && ts.IsName(j + 1) && j + 1 < end) {
      j += 2;
    } else if ((ts.Is(j, "(") || ts.Is(j, "[")) && ts.tokens[j].kind == TokenKind::kOp && ts.match[j] < end) {
      j = ts.match[j] + 1;
    } else {
      break;
    }
  }
  return j;
}

std::optional<Literal> ParseLiteral(const TokenStream& ts, size_t i, size_t end, size_t& next, const Bindings* bindings,
                                    int depth) {
  if (i >= end || depth > kMaxLiteralDepth) return std::nullopt;
  const Token& t = ts.tokens[i];
  Literal lit;
  lit.first_token = i;
  if (t.kind == TokenKind::kOp && (ts.Text(i) == "(" || ts.Text(i) == "[" || ts.Text(i) == "{")) {
    if (ts.match[i] >= end) return std::nullopt;
    return ParseCollection(ts, i, next, bindings, depth);
  }
  if (t.kind == TokenKind::kOp && ts.Text(i) == "-" && i + 1 < end && ts.tokens[i + 1].kind == TokenKind::kNumber) {
    std::optional<long long> n = ParseInt(ts.Text(i + 1));
    if (!n) return std::nullopt;
    lit.kind = LiteralKind::kInt;
    lit.number = -*n;
    next = i + 2;
  } else if (t.kind == TokenKind::kNumber) {
    std::optional<long long> n = ParseInt(ts.Text(i));
    if (!n) return std::nullopt;  // floats, imaginaries: not arch numbers
    lit.kind = LiteralKind::kInt;
    lit.number = *n;
    next = i + 1;
  } else if (t.kind == TokenKind::kString) {
    size_t j = i;
    lit.kind = LiteralKind::kString;
    for (; j < end && ts.tokens[j].kind == TokenKind::kString; ++j) {
      if (ts.tokens[j].fstring) return std::nullopt;
      lit.text += StringBody(ts.Text(j));
    }
    next = j;
  } else if (ts.Is(i, "None")) {
    lit.kind = LiteralKind::kNone;
    next = i + 1;
  } else if (size_t member = EnumArchMember(ts, i, end); member != 0) {
    lit.kind = LiteralKind::kString;  // `Arch.sm_100a`: the enum member names the arch
    lit.text = std::string(ts.Text(member));
    lit.enum_member = true;
    next = member + 1;
  } else if (ts.IsName(i) && bindings && PrimaryEnd(ts, i, end) == i + 1) {
    auto found = bindings->find(ts.Text(i));
    if (found == bindings->end()) return std::nullopt;
    Literal bound = found->second;
    bound.via = std::string(ts.Text(i));
    next = i + 1;
    return bound;
  } else {
    return std::nullopt;
  }
  lit.last_token = next;
  lit.span = ts.Span(i, next);
  return lit;
}

Bindings ModuleBindings(const TokenStream& ts, const std::vector<LogicalLine>& lines) {
  Bindings bound;
  std::map<std::string, int, std::less<>> count;
  for (const LogicalLine& line : lines) {
    if (line.depth != 0 || !line.scope.empty() || !ts.IsName(line.first)) continue;
    size_t eq = line.first + 1;
    if (ts.Is(eq, ":")) {  // NAME: annotation = value
      while (eq < line.last && !ts.Is(eq, "=")) {
        eq = ts.tokens[eq].kind == TokenKind::kOp && ts.match[eq] != std::string_view::npos ? ts.match[eq] + 1 : eq + 1;
      }
    }
    if (!ts.Is(eq, "=")) continue;
    const std::string name(ts.Text(line.first));
    ++count[name];
    size_t next = 0;
    std::optional<Literal> lit = ParseLiteral(ts, eq + 1, line.last, next, nullptr);
    if (lit && next == line.last && lit->kind != LiteralKind::kOpaque) bound[name] = *lit;
  }
  for (const auto& [name, n] : count) {
    if (n > 1) bound.erase(name);  // rebound: which value applies depends on the run
  }
  return bound;
}

}  // namespace archpatch::python
