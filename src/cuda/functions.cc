#include "cuda/functions.h"

#include <algorithm>
#include <set>

namespace archpatch::cuda {
namespace {

bool Is(const Token& t, std::string_view contents, std::string_view text) {
  return t.Spelling(contents) == text;
}

// Significant tokens: no comments, and none of a directive's tokens (a #define body may hold
// braces and parentheses that do not belong to the code around it).
std::vector<Token> CodeTokens(const std::vector<Token>& tokens, std::string_view contents) {
  std::vector<Token> code;
  code.reserve(tokens.size());
  size_t directive_end = 0;
  for (size_t i = 0; i < tokens.size(); ++i) {
    const Token& t = tokens[i];
    if (t.kind == Token::Kind::kComment || t.begin < directive_end) continue;
    if (Is(t, contents, "#")) {
      size_t line_end = t.begin;
      // A directive runs to a newline that no backslash escapes.
      while (true) {
        line_end = contents.find('\n', line_end);
        if (line_end == std::string_view::npos) { line_end = contents.size(); break; }
        size_t k = line_end;
        if (k > 0 && contents[k - 1] == '\r') --k;
        if (k == 0 || contents[k - 1] != '\\') break;
        ++line_end;
      }
      // Tokens (a block comment, a string) may run past the newline: follow them.
      for (size_t j = i; j < tokens.size() && tokens[j].begin < line_end; ++j) {
        line_end = std::max<size_t>(line_end, tokens[j].end);
      }
      directive_end = line_end;
      continue;
    }
    code.push_back(t);
  }
  return code;
}

const std::set<std::string_view>& AttributeMacros() {
  static const std::set<std::string_view> names = {
      "__launch_bounds__", "__maxnreg__", "__cluster_dims__", "__attribute__", "__declspec",
      "alignas", "decltype", "__align__", "CUTLASS_GLOBAL", "__noinline__"};
  return names;
}

// Index of the ')' matching the '(' at `open`, or code.size().
size_t MatchParen(const std::vector<Token>& code, size_t open, std::string_view contents) {
  int depth = 0;
  for (size_t i = open; i < code.size(); ++i) {
    if (Is(code[i], contents, "(")) ++depth;
    if (Is(code[i], contents, ")") && --depth == 0) return i;
  }
  return code.size();
}

std::string KernelName(const std::vector<Token>& code, size_t global, std::string_view contents) {
  for (size_t i = global + 1; i < code.size(); ++i) {
    std::string_view s = code[i].Spelling(contents);
    if (s == ";" || s == "{" || s == "}") break;
    if (s != "(") continue;
    const Token& before = code[i - 1];
    if (before.kind == Token::Kind::kIdentifier && !AttributeMacros().count(before.Spelling(contents))) {
      return std::string(before.Spelling(contents));
    }
    i = MatchParen(code, i, contents);  // skip __launch_bounds__(...) and the like
  }
  return "";
}

// The name before the parameter list whose ')' is at `close`, or "" when the braces are not a
// function body (control flow, lambdas, initialisers).
std::string FunctionNameBefore(const std::vector<Token>& code, size_t close, std::string_view contents) {
  int depth = 0;
  size_t open = close;
  for (size_t i = close + 1; i-- > 0;) {
    if (Is(code[i], contents, ")")) ++depth;
    if (Is(code[i], contents, "(") && --depth == 0) { open = i; break; }
  }
  if (open == close || open == 0) return "";
  const Token& name = code[open - 1];
  std::string_view s = name.Spelling(contents);
  static const std::set<std::string_view> kControl = {"if", "for", "while", "switch", "catch",
                                                      "return", "sizeof", "alignof", "decltype",
                                                      // `if constexpr (...) {`, not a function
                                                      "constexpr", "static_assert", "noexcept", "requires"};
  if (name.kind != Token::Kind::kIdentifier && name.kind != Token::Kind::kKeyword) return "";
  if (kControl.count(s) || AttributeMacros().count(s)) return "";
  std::string full(s);
  for (size_t k = open - 1; k >= 2 && Is(code[k - 1], contents, "::") &&
                            code[k - 2].kind == Token::Kind::kIdentifier;
       k -= 2) {
    full = std::string(code[k - 2].Spelling(contents)) + "::" + full;
  }
  return full;
}

// Whether the '{' at `brace` opens a body of a function declared just before it.
std::string BodyName(const std::vector<Token>& code, size_t brace, std::string_view contents) {
  static const std::set<std::string_view> kTrailing = {"const", "noexcept", "override", "final",
                                                       "mutable", "volatile"};
  size_t i = brace;
  while (i > 0 && kTrailing.count(code[i - 1].Spelling(contents))) --i;
  if (i == 0 || !Is(code[i - 1], contents, ")")) return "";
  return FunctionNameBefore(code, i - 1, contents);
}

}  // namespace

std::vector<KernelDecl> FindKernels(const std::vector<Token>& tokens, std::string_view contents) {
  std::vector<Token> code = CodeTokens(tokens, contents);
  std::vector<KernelDecl> kernels;
  for (size_t i = 0; i < code.size(); ++i) {
    if (!Is(code[i], contents, "__global__")) continue;
    std::string name = KernelName(code, i, contents);
    if (!name.empty()) kernels.push_back({std::move(name), code[i].begin});
  }
  return kernels;
}

std::vector<FunctionBody> FindFunctionBodies(const std::vector<Token>& tokens, std::string_view contents) {
  std::vector<Token> code = CodeTokens(tokens, contents);
  std::vector<FunctionBody> bodies;
  std::vector<int> open;     // per '{': index into bodies, or -1 for other braces
  std::vector<int> holders;  // the bodies among `open`, innermost last
  for (size_t i = 0; i < code.size(); ++i) {
    if (Is(code[i], contents, "{")) {
      std::string name = BodyName(code, i, contents);
      if (name.empty()) {
        open.push_back(-1);
        continue;
      }
      bodies.push_back({std::move(name), code[i].begin, contents.size(), holders.empty() ? -1 : holders.back()});
      open.push_back(static_cast<int>(bodies.size()) - 1);
      holders.push_back(open.back());
    } else if (Is(code[i], contents, "}") && !open.empty()) {
      if (open.back() >= 0) bodies[open.back()].end = code[i].end, holders.pop_back();
      open.pop_back();
    }
  }
  return bodies;
}

std::string EnclosingFunction(const std::vector<FunctionBody>& bodies, size_t offset) {
  // Bodies nest and start in order: the last one starting at or before `offset` holds it or is
  // nested in the body that does, which its parent chain reaches.
  auto after = std::upper_bound(bodies.begin(), bodies.end(), offset,
                                [](size_t at, const FunctionBody& b) { return at < b.begin; });
  int i = static_cast<int>(after - bodies.begin()) - 1;
  while (i >= 0 && !(bodies[i].begin <= offset && offset < bodies[i].end)) i = bodies[i].parent;
  return i >= 0 ? bodies[i].name : "";
}

}  // namespace archpatch::cuda
