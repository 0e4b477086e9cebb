#include "cuda/functions.h"

#include <algorithm>
#include <set>

namespace archpatch::cuda {
namespace {

// Whether `t` is spelled `text`, a literal. Every pass here calls this on every token of the
// file; taking the literal's length as a constant lets the compiler compare the bytes inline
// instead of calling memcmp (which took a tenth of FindFunctionBodies' time), and a one-byte
// punctuator ("{", "#") is a single byte compare.
template <size_t N>
inline bool Is(const Token& t, std::string_view contents, const char (&text)[N]) {
  if (t.end - t.begin != N - 1 || t.end > contents.size()) return false;
  if constexpr (N == 2) return contents[t.begin] == text[0];
  return std::string_view(contents.data() + t.begin, N - 1) == std::string_view(text, N - 1);
}

// Significant tokens: no comments, and none of a directive's tokens (a #define body may hold
// braces and parentheses that do not belong to the code around it).
// (Written into a vector sized once and cut after: a push_back per token cost half of this pass.)
std::vector<Token> CodeTokens(const std::vector<Token>& tokens, std::string_view contents) {
  std::vector<Token> code(tokens.size());
  size_t kept = 0;
  size_t directive_end = 0;
  for (size_t i = 0; i < tokens.size(); ++i) {
    const Token& t = tokens[i];
    if (t.kind == Token::Kind::kComment || t.begin < directive_end) continue;
    if (Is(t, contents, "#")) {
      size_t line_end = t.begin;
      // A directive runs to a newline that no backslash escapes.
      while (true) {
        line_end = contents.find('\n', line_end);
        if (line_end == std::string_view::npos) {
          line_end = contents.size();
          break;
        }
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
    code[kept++] = t;
  }
  code.resize(kept);
  return code;
}

const std::set<std::string_view>& AttributeMacros() {
  static const std::set<std::string_view> names = {
      "__launch_bounds__", "__maxnreg__", "__cluster_dims__", "__attribute__",  "__declspec",
      "alignas",           "decltype",    "__align__",        "CUTLASS_GLOBAL", "__noinline__"};
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

// Index of the '(' or '{' matching the ')' or '}' at `close`, or `close` when there is none.
size_t OpenBracket(const std::vector<Token>& code, size_t close, std::string_view contents) {
  const bool brace = Is(code[close], contents, "}");
  int depth = 0;
  for (size_t i = close + 1; i-- > 0;) {
    if (brace ? Is(code[i], contents, "}") : Is(code[i], contents, ")")) ++depth;
    if ((brace ? Is(code[i], contents, "{") : Is(code[i], contents, "(")) && --depth == 0) return i;
  }
  return close;
}

// `operator()`, `operator==`, `operator[]`, `operator bool` ending just before `open` (the
// parameter list's '('): the index of the `operator` token and the name, or {open, ""}.
std::pair<size_t, std::string> OperatorName(const std::vector<Token>& code, size_t open, std::string_view contents) {
  for (size_t back = 2; back <= 3 && back <= open; ++back) {
    if (!Is(code[open - back], contents, "operator")) continue;
    std::string name = "operator";
    for (size_t k = open - back + 1; k < open; ++k) {
      const std::string_view part = code[k].Spelling(contents);
      if (code[k].kind == Token::Kind::kIdentifier || code[k].kind == Token::Kind::kKeyword) name += ' ';
      name += part;
    }
    return {open - back, name};
  }
  return {open, ""};
}

// The plain name (an identifier or keyword) just before the parameter list's '(' at `open`, or
// "" when it names no function (control flow, attributes, punctuation).
std::string_view PlainNameAt(const std::vector<Token>& code, size_t open, std::string_view contents) {
  const Token& name = code[open - 1];
  std::string_view s = name.Spelling(contents);
  static const std::set<std::string_view> kControl = {
      "if", "for", "while", "switch", "catch", "return", "sizeof", "alignof", "decltype",
      // `if constexpr (...) {`, not a function
      "constexpr", "static_assert", "noexcept", "requires", "__device__", "__host__"};
  if (name.kind != Token::Kind::kIdentifier && name.kind != Token::Kind::kKeyword) return "";
  if (kControl.count(s) || AttributeMacros().count(s)) return "";
  return s;
}

// `name`, starting at code[first], with the `A::B::` written before it.
std::string Qualified(const std::vector<Token>& code, size_t first, std::string full, std::string_view contents) {
  for (size_t k = first; k >= 2 && Is(code[k - 1], contents, "::") && code[k - 2].kind == Token::Kind::kIdentifier;
       k -= 2) {
    full = std::string(code[k - 2].Spelling(contents)) + "::" + full;
  }
  return full;
}

// The names before the parameter list whose ')' is at `close`, "" when the braces are not a
// function body (control flow, lambdas, initialisers): `scoped` reads operator() and the like
// too, `plain` does not (FindFunctionBodies with and without `scopes`). `plain` may be null.
std::string FunctionNamesBefore(const std::vector<Token>& code, size_t close, std::string_view contents, bool operators,
                                std::string* plain) {
  const size_t open = OpenBracket(code, close, contents);
  if (open == close || open == 0) return "";
  auto [first, full] = operators ? OperatorName(code, open, contents) : std::pair<size_t, std::string>{open, ""};
  if (!full.empty()) {  // an operator: the plain reading takes the word before '(' alone
    const std::string_view word = PlainNameAt(code, open, contents);
    if (plain) *plain = word.empty() ? "" : Qualified(code, open - 1, std::string(word), contents);
    return Qualified(code, first, std::move(full), contents);
  }
  const std::string_view word = PlainNameAt(code, open, contents);
  if (word.empty()) return "";
  std::string name = Qualified(code, open - 1, std::string(word), contents);
  if (plain) *plain = name;
  return name;
}

// The index just past the specifiers between a parameter list's ')' and the body's '{' at
// `brace`: `const`, `noexcept`, `mutable`, `-> T` (a trailing return type), ... `brace` itself
// when there is no ')' to reach.
size_t CloseBeforeBody(const std::vector<Token>& code, size_t brace, std::string_view contents) {
  static const std::set<std::string_view> kTrailing = {"const",    "noexcept",  "override",   "final",   "mutable",
                                                       "volatile", "constexpr", "__device__", "__host__"};
  size_t i = brace;
  for (size_t k = brace; k > 0 && brace - k < 16; --k) {  // `-> T`: a short return type
    const std::string_view s = code[k - 1].Spelling(contents);
    if (s == "->") {
      i = k - 1;
      break;
    }
    if (s == ";" || s == "{" || s == "}" || s == ")" || s == "=") break;
  }
  while (i > 0 && kTrailing.count(code[i - 1].Spelling(contents))) --i;
  return i;
}

// A constructor's member initializers (`Ctor(int a) : a_(a), b_{a} {`) stand between its
// parameter list and its body: from `i`, just past what precedes the body, the index just past
// the parameter list's ')'; `i` itself where no initializer list ends.
size_t BeforeInitializers(const std::vector<Token>& code, size_t i, std::string_view contents) {
  for (size_t k = i; k > 0 && (Is(code[k - 1], contents, ")") || Is(code[k - 1], contents, "}"));) {
    const size_t open = OpenBracket(code, k - 1, contents);
    if (open == k - 1 || open == 0 || code[open - 1].kind != Token::Kind::kIdentifier) return i;
    size_t name = open - 1;  // `ns::Base(x)` initializes a base
    while (name >= 2 && Is(code[name - 1], contents, "::") && code[name - 2].kind == Token::Kind::kIdentifier)
      name -= 2;
    if (name == 0) return i;
    if (Is(code[name - 1], contents, ",")) {
      k = name - 1;
      continue;
    }
    if (!Is(code[name - 1], contents, ":")) return i;  // `public: Ctor() {` has no initializers
    const size_t params = CloseBeforeBody(code, name - 1, contents);
    return params > 0 && Is(code[params - 1], contents, ")") ? params : i;
  }
  return i;
}

// Whether the '{' at `brace` opens a body of a function declared just before it: its name, and
// with `plain` its name as read without operators (FunctionNamesBefore).
std::string BodyName(const std::vector<Token>& code, size_t brace, std::string_view contents, bool operators,
                     std::string* plain = nullptr) {
  const size_t i = BeforeInitializers(code, CloseBeforeBody(code, brace, contents), contents);
  if (i == 0 || !Is(code[i - 1], contents, ")")) return "";
  return FunctionNamesBefore(code, i - 1, contents, operators, plain);
}

// A lambda's body: `[captures](params) specifiers {`, `[captures] {`, `[=] __device__ (...) {`.
// Its name is the variable it initialises (`auto pick = [&](int i) {`), else "lambda".
std::string LambdaName(const std::vector<Token>& code, size_t brace, std::string_view contents) {
  size_t i = CloseBeforeBody(code, brace, contents);
  if (i > 0 && Is(code[i - 1], contents, ")")) {
    i = OpenBracket(code, i - 1, contents);
    while (i > 0 && (Is(code[i - 1], contents, "__device__") || Is(code[i - 1], contents, "__host__"))) --i;
  }
  if (i == 0 || !Is(code[i - 1], contents, "]")) return "";
  size_t open = i - 1;
  for (int depth = 0; open-- > 0;) {
    if (Is(code[open], contents, "]")) ++depth;
    if (Is(code[open], contents, "[") && depth-- == 0) break;
  }
  if (open == static_cast<size_t>(-1)) return "";
  // `a[i] {`, `new int[n] {` are no lambdas: an introducer follows an operator or punctuation
  // (`=`, `(`, `,`, `{`, `;`), `return`, or nothing.
  if (open > 0) {
    const Token& before = code[open - 1];
    const bool word = before.kind == Token::Kind::kIdentifier || before.kind == Token::Kind::kKeyword;
    if ((word && !Is(before, contents, "return")) || Is(before, contents, "]") || Is(before, contents, ")")) return "";
    if (open >= 2 && Is(before, contents, "=") && code[open - 2].kind == Token::Kind::kIdentifier) {
      return std::string(code[open - 2].Spelling(contents));
    }
  }
  return "lambda";
}

// `struct NAME ... {`, `class NAME ... {`, `union NAME ... {` (templates, bases and attributes
// allowed before the brace): NAME, or "" for any other brace.
std::string ClassName(const std::vector<Token>& code, size_t brace, std::string_view contents) {
  for (size_t k = brace; k > 0 && brace - k < 64; --k) {
    const Token& t = code[k - 1];
    const std::string_view s = t.Spelling(contents);
    if (s == ";" || s == "{" || s == "}" || s == ")") return "";
    if (s != "struct" && s != "class" && s != "union") continue;
    if (k >= 2 && Is(code[k - 2], contents, "enum")) return "";
    for (size_t n = k; n < brace; ++n) {  // the first identifier after the key that is no attribute
      if (code[n].kind != Token::Kind::kIdentifier) continue;
      if (AttributeMacros().count(code[n].Spelling(contents))) continue;
      return std::string(code[n].Spelling(contents));
    }
    return "";
  }
  return "";
}

std::vector<KernelDecl> KernelsIn(const std::vector<Token>& code, std::string_view contents) {
  std::vector<KernelDecl> kernels;
  for (size_t i = 0; i < code.size(); ++i) {
    if (!Is(code[i], contents, "__global__")) continue;
    std::string name = KernelName(code, i, contents);
    if (!name.empty()) kernels.push_back({std::move(name), code[i].begin});
  }
  return kernels;
}

// The function bodies of `code`, as FindFunctionBodies gives them; with `plain` (and `scopes`),
// also those it gives without `scopes`, from the same walk over the braces (FindAllFunctions).
std::vector<FunctionBody> BodiesIn(const std::vector<Token>& code, std::string_view contents, bool scopes,
                                   std::vector<FunctionBody>* plain = nullptr) {
  std::vector<FunctionBody> bodies;
  struct Open {
    int body = -1;      // index into bodies, or -1
    std::string klass;  // a class/struct/union body: its name
    int plain = -1;     // index into *plain, or -1
  };
  std::vector<Open> open;          // per '{'
  std::vector<int> holders;        // the bodies among `open`, innermost last
  std::vector<int> plain_holders;  // the same in *plain
  // "Outer::Inner" for the classes the brace at the top of `open` sits in, up to the innermost
  // function (a local class's methods are "Local::m"); with `lambda_in`, the enclosing function's
  // own name too, as a lambda's scope starts from it.
  auto prefix = [&](bool lambda_in) {
    std::string out;
    for (size_t k = open.size(); k-- > 0;) {
      if (open[k].body >= 0) {
        if (lambda_in) out = bodies[open[k].body].name + (out.empty() ? "" : "::" + out);
        break;
      }
      if (!open[k].klass.empty()) out = open[k].klass + (out.empty() ? "" : "::" + out);
    }
    return out;
  };
  std::string plain_name;
  for (size_t i = 0; i < code.size(); ++i) {
    if (Is(code[i], contents, "{")) {
      plain_name.clear();
      std::string name = BodyName(code, i, contents, scopes, plain && scopes ? &plain_name : nullptr);
      bool lambda = false;
      if (name.empty() && scopes) name = LambdaName(code, i, contents), lambda = !name.empty();
      if (name.empty()) {
        open.push_back({-1, scopes ? ClassName(code, i, contents) : "", -1});
        continue;
      }
      const std::string outer = prefix(lambda);
      bodies.push_back({outer.empty() ? name : outer + "::" + name, code[i].begin, contents.size(),
                        holders.empty() ? -1 : holders.back()});
      open.push_back({static_cast<int>(bodies.size()) - 1, "", -1});
      holders.push_back(open.back().body);
      if (!plain_name.empty()) {  // never a lambda: a body without `scopes` has a name with them
        plain->push_back(
            {std::move(plain_name), code[i].begin, contents.size(), plain_holders.empty() ? -1 : plain_holders.back()});
        open.back().plain = static_cast<int>(plain->size()) - 1;
        plain_holders.push_back(open.back().plain);
      }
    } else if (Is(code[i], contents, "}") && !open.empty()) {
      if (open.back().body >= 0) bodies[open.back().body].end = code[i].end, holders.pop_back();
      if (open.back().plain >= 0) (*plain)[open.back().plain].end = code[i].end, plain_holders.pop_back();
      open.pop_back();
    }
  }
  return bodies;
}

}  // namespace

std::vector<KernelDecl> FindKernels(const std::vector<Token>& tokens, std::string_view contents) {
  return KernelsIn(CodeTokens(tokens, contents), contents);
}

std::vector<FunctionBody> FindFunctionBodies(const std::vector<Token>& tokens, std::string_view contents, bool scopes) {
  return BodiesIn(CodeTokens(tokens, contents), contents, scopes);
}

FileFunctions FindKernelsAndBodies(const std::vector<Token>& tokens, std::string_view contents, bool scopes) {
  const std::vector<Token> code = CodeTokens(tokens, contents);
  return {KernelsIn(code, contents), BodiesIn(code, contents, scopes)};
}

AllFunctions FindAllFunctions(const std::vector<Token>& tokens, std::string_view contents) {
  const std::vector<Token> code = CodeTokens(tokens, contents);
  AllFunctions out;
  out.kernels = KernelsIn(code, contents);
  out.scoped = BodiesIn(code, contents, /*scopes=*/true, &out.plain);
  return out;
}

const FunctionBody* InnermostBody(const std::vector<FunctionBody>& bodies, size_t offset) {
  // Bodies nest and start in order: the last one starting at or before `offset` holds it or is
  // nested in the body that does, which its parent chain reaches.
  auto after = std::upper_bound(bodies.begin(), bodies.end(), offset,
                                [](size_t at, const FunctionBody& b) { return at < b.begin; });
  int i = static_cast<int>(after - bodies.begin()) - 1;
  while (i >= 0 && !(bodies[i].begin <= offset && offset < bodies[i].end)) i = bodies[i].parent;
  return i >= 0 ? &bodies[i] : nullptr;
}

std::string EnclosingFunction(const std::vector<FunctionBody>& bodies, size_t offset) {
  const FunctionBody* body = InnermostBody(bodies, offset);
  return body ? body->name : "";
}

}  // namespace archpatch::cuda
