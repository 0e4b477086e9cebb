#include "hazard/empty_kernel.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include <spdlog/spdlog.h>

#include "cuda/blank_bodies.h"

namespace archpatch::hazard {
namespace {

// Byte spans (possibly nested or overlapping) asked "does one of you hold this token?" in
// O(log spans): sorted by start, with the furthest end reached so far.
class SpanSet {
 public:
  explicit SpanSet(std::vector<std::pair<size_t, size_t>> spans) : spans_(std::move(spans)) {
    std::sort(spans_.begin(), spans_.end());
    size_t reach = 0;
    for (const auto& span : spans_) reach_.push_back(reach = std::max(reach, span.second));
  }
  bool Holds(const Token& t) const {
    auto after = std::upper_bound(spans_.begin(), spans_.end(), std::make_pair(size_t{t.begin}, SIZE_MAX));
    return after != spans_.begin() && reach_[after - spans_.begin() - 1] >= t.end;
  }

 private:
  std::vector<std::pair<size_t, size_t>> spans_;
  std::vector<size_t> reach_;
};

// The index of the first token starting at or after `offset`.
size_t FirstTokenAt(const std::vector<Token>& tokens, size_t offset) {
  return std::lower_bound(tokens.begin(), tokens.end(), offset,
                          [](const Token& t, size_t at) { return t.begin < at; }) -
         tokens.begin();
}

// Whether the kernel, as `parse` saw it (one arch's macros), keeps a token of real code: one the
// preprocessor kept, not on a directive line, outside declarations, returns and null statements.
bool HasRealCode(const ParsedSource& parse, const FunctionDef& fn) {
  const SpanSet trivial(fn.trivial_statements);
  for (size_t i = FirstTokenAt(parse.tokens, fn.body_begin); i < parse.tokens.size(); ++i) {
    const Token& t = parse.tokens[i];
    if (t.begin >= fn.body_end) break;
    if (t.begin <= fn.body_begin || t.end >= fn.body_end) continue;  // the braces
    if (parse.on_directive[i] || t.kind == Token::Kind::kComment || parse.Spelling(t) == ";") continue;
    if (parse.Skipped(t) || trivial.Holds(t)) continue;
    return true;
  }
  return false;
}

const FunctionDef* FindKernel(const ParsedSource& parse, const FunctionDef& kernel) {
  auto named = parse.functions_by_name.find(kernel.name);
  if (named == parse.functions_by_name.end()) return nullptr;
  for (size_t index : named->second) {
    if (parse.functions[index].body_begin == kernel.body_begin) return &parse.functions[index];
  }
  return nullptr;
}

// The bodies of the parse's functions, outer first (as cuda::BlankBodies takes them); without
// `kernels`, those of the kernels left out.
std::vector<gate::ByteSpan> BodiesOuterFirst(const ParsedSource& parse, bool kernels) {
  std::vector<gate::ByteSpan> bodies;
  for (const FunctionDef& fn : parse.functions) {
    if (kernels || !fn.is_kernel) bodies.push_back({fn.body_begin, fn.body_end});
  }
  std::sort(bodies.begin(), bodies.end(), [](const gate::ByteSpan& a, const gate::ByteSpan& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end > b.end;
  });
  return bodies;
}

// One parse per arch, made on first use and shared by every kernel of the file.
class ArchParses {
 public:
  ArchParses(const std::string& path, std::string_view contents, const ParsedSource& host,
             const std::vector<arch::Arch>& arches)
      : path_(path), contents_(contents), host_(host), arches_(arches) {}

  const ParsedSource* Get(size_t arch_index) {
    auto it = parses_.find(arch_index);
    if (it != parses_.end()) return it->second.get();
    // An arch's parse looks only into kernels: the other functions' bodies are blanked (the
    // device functions of trtllm_allreduce.cuh were most of its bytes, parsed once per arch).
    if (!kernels_only_) {
      kernels_only_ = cuda::BlankBodies(contents_, host_.tokens, BodiesOuterFirst(host_, /*kernels=*/false));
    }
    Result<ParsedSource> parse = Parse(path_, *kernels_only_, DeviceDefines(arches_[arch_index]));
    std::unique_ptr<ParsedSource> owned;
    if (parse) {
      owned = std::make_unique<ParsedSource>(std::move(*parse));
    } else {
      spdlog::warn("{}", parse.error().str());
    }
    return (parses_[arch_index] = std::move(owned)).get();
  }

 private:
  const std::string& path_;
  std::string_view contents_;
  const ParsedSource& host_;
  const std::vector<arch::Arch>& arches_;
  std::optional<std::string> kernels_only_;  // what the parses read: they point into it
  std::map<size_t, std::unique_ptr<ParsedSource>> parses_;
};

// The branches whose directive lies in (begin, end): a binary search, branches are in file order.
std::vector<int> GatesInside(const std::vector<Branch>& branches, size_t begin, size_t end) {
  std::vector<int> out;
  auto first = std::upper_bound(branches.begin(), branches.end(), begin,
                                [](size_t at, const Branch& b) { return at < b.directive_begin; });
  for (auto b = first; b != branches.end() && b->directive_begin < end; ++b) {
    out.push_back(static_cast<int>(b - branches.begin()));
  }
  return out;
}

Tri VerdictFor(ArchParses& parses, size_t arch_index, const FunctionDef& kernel) {
  const ParsedSource* parse = parses.Get(arch_index);
  if (!parse) return Tri::kUnknown;
  const FunctionDef* fn = FindKernel(*parse, kernel);
  if (!fn) return Tri::kUnknown;
  return TriOf(HasRealCode(*parse, *fn));
}

}  // namespace

std::string HostParseBytes(std::string_view contents, const ParsedSource& source) {
  std::vector<gate::ByteSpan> plain;
  size_t covered = 0;  // a body inside one that holds a directive stays: it may be a kernel's code
  for (const gate::ByteSpan& body : BodiesOuterFirst(source, /*kernels=*/true)) {
    if (body.begin < covered) continue;
    covered = body.end;
    bool directive = false;
    for (size_t i = FirstTokenAt(source.tokens, body.begin); i < source.tokens.size() && !directive; ++i) {
      if (source.tokens[i].begin >= body.end) break;
      directive = source.on_directive[i];
    }
    if (!directive) plain.push_back(body);
  }
  return cuda::BlankBodies(contents, source.tokens, plain);
}

std::vector<KernelBody> AnalyzeKernels(const std::string& path, std::string_view contents, const ParsedSource& host,
                                       const std::vector<Branch>& branches, const std::vector<arch::Arch>& arches) {
  std::vector<KernelBody> out;
  ArchParses parses(path, contents, host, arches);
  for (const FunctionDef& kernel : host.functions) {
    if (!kernel.is_kernel) continue;
    KernelBody k{kernel.name, kernel.line, kernel.column, kernel.body_begin, kernel.body_end, {}, {}};
    k.gates = GatesInside(branches, kernel.body_begin, kernel.body_end);
    if (k.gates.empty()) continue;  // the same body on every arch: nothing arch-dependent to say
    // Arches that take the same branches share one parse.
    std::map<std::vector<Tri>, Tri> by_signature;
    for (size_t a = 0; a < arches.size(); ++a) {
      std::vector<Tri> signature;
      for (int g : k.gates) signature.push_back(branches[g].verdict[a]);
      if (std::find(signature.begin(), signature.end(), Tri::kUnknown) != signature.end()) {
        k.has_code.push_back(Tri::kUnknown);
        continue;
      }
      auto it = by_signature.find(signature);
      if (it == by_signature.end()) it = by_signature.emplace(signature, VerdictFor(parses, a, kernel)).first;
      k.has_code.push_back(it->second);
    }
    out.push_back(std::move(k));
  }
  return out;
}

namespace {

// A token as the statement reader sees it.
struct Word {
  Token::Kind kind;
  std::string_view text;
};

// Tokens that start a declaration (or another statement that compiles to no code of its own).
bool StartsDeclaration(std::string_view s) {
  static const std::set<std::string_view> kWords = {
      "int",           "unsigned",  "signed",     "long",      "short",  "char",      "float",
      "double",        "bool",      "auto",       "void",      "const",  "constexpr", "static",
      "volatile",      "register",  "__shared__", "__align__", "extern", "using",     "typedef",
      "static_assert", "namespace", "typename",   "struct",    "class",  "enum",      "return"};
  return kWords.count(s) > 0;
}

// `Type name ...`: a (qualified, templated) type name, cv/pointer marks, then the declared name.
bool LooksLikeDeclaration(const std::vector<Word>& st) {
  if (st.empty() || StartsDeclaration(st[0].text)) return true;
  size_t i = 0;
  if (st[0].kind != Token::Kind::kIdentifier) return false;
  for (++i; i < st.size();) {
    const std::string_view s = st[i].text;
    if (s == "::" && i + 1 < st.size()) {
      i += 2;
    } else if (s == "<") {  // template arguments
      int depth = 0;
      for (; i < st.size(); ++i) {
        if (st[i].text == "<") ++depth;
        if (st[i].text == ">") --depth;
        if (st[i].text == ">>") depth -= 2;
        if (depth <= 0) break;
      }
      ++i;
    } else if (s == "*" || s == "&" || s == "const" || s == "volatile" || s == "__restrict__") {
      ++i;
    } else {
      break;
    }
  }
  return i < st.size() && st[i].kind == Token::Kind::kIdentifier && i > 0;
}

// Calls `take(statement, depth)` with each statement of `tokens` until it returns true: the
// statements are split at `;`, `{` and `}` outside parentheses (blocks are transparent: what
// they hold is read too), `depth` counts the blocks open around one. Whether one was taken.
template <typename Take>
bool AnyStatement(const std::vector<Word>& tokens, const Take& take) {
  std::vector<Word> statement;
  int parens = 0, depth = 0;
  for (const Word& t : tokens) {
    const std::string_view s = t.text;
    if (parens == 0 && (s == "{" || s == "}" || s == ";")) {
      if (!statement.empty() && take(statement, depth)) return true;
      statement.clear();
      depth += s == "{" ? 1 : s == "}" ? -1 : 0;
      continue;
    }
    if (s == "(" || s == "[") ++parens;
    if (s == ")" || s == "]") --parens;
    statement.push_back(t);
  }
  return !statement.empty() && take(statement, depth);
}

// Whether the surviving tokens hold a statement that is real code.
bool HasRealStatement(const std::vector<Word>& tokens) {
  return AnyStatement(tokens, [](const std::vector<Word>& st, int) { return !LooksLikeDeclaration(st); });
}

// Past the template arguments opening at `st[at]` (`<`), or `st.size()` when they do not close.
size_t PastTemplateArguments(const std::vector<Word>& st, size_t at) {
  int depth = 0;
  for (size_t i = at; i < st.size(); ++i) {
    depth += st[i].text == "<" ? 1 : st[i].text == ">" ? -1 : st[i].text == ">>" ? -2 : 0;
    if (depth <= 0) return i + 1;
  }
  return st.size();
}

// A statement of the body's own block that no parse reads as a declaration: a control statement,
// or a (qualified) name that is no type of the file followed by a call, an assignment, a member
// access or a subscript; template arguments only before the call of a function of the file
// (`impl<T, N>(args)`: of another name it may declare, `array<int, 4>(x)`). Inside a nested
// block the statement may be a lambda's or a local class's, which a parse counts with the
// declaration around it: not plain.
bool PlainlyCode(const std::vector<Word>& st, int depth, const ParsedSource& source) {
  static const std::set<std::string_view> kControl = {"if", "for", "while", "do", "switch", "asm", "goto"};
  static const std::set<std::string_view> kAfterName = {
      "(", "=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=", ".", "->", "[", "++", "--"};
  if (depth != 0) return false;
  if (kControl.count(st[0].text)) return true;
  for (size_t i = 0; i < st.size() && st[i].kind == Token::Kind::kIdentifier && !source.types.count(st[i].text);
       i += 2) {
    if (i + 1 == st.size()) return false;
    const std::string_view next = st[i + 1].text;
    if (next == "<" && source.functions_by_name.count(st[i].text)) {
      const size_t after = PastTemplateArguments(st, i + 1);
      return after < st.size() && st[after].text == "(";
    }
    if (next != "::") return kAfterName.count(next) > 0;
  }
  return false;
}

// The names the file #defines, object- or function-like: one in a kernel's body may expand to
// anything in a parse.
std::set<std::string_view> DefinedNames(const ParsedSource& source) {
  std::set<std::string_view> out;
  const std::vector<Token>& t = source.tokens;
  for (size_t i = 0; i + 2 < t.size(); ++i) {
    if (source.on_directive[i] && source.Spelling(t[i]) == "#" && source.Spelling(t[i + 1]) == "define") {
      out.insert(source.Spelling(t[i + 2]));
    }
  }
  return out;
}

// The verdict of one arch as a parse would give it, when the surviving tokens settle it.
std::optional<Tri> SettledVerdict(const KernelBody& k, const std::vector<Branch>& branches, size_t arch,
                                  const std::vector<Word>& surviving, const ParsedSource& source) {
  for (int g : k.gates) {
    if (branches[g].verdict[arch] == Tri::kUnknown) return Tri::kUnknown;  // AnalyzeKernels asks no parse
  }
  if (std::all_of(surviving.begin(), surviving.end(), [](const Word& w) { return w.text == ";"; })) return Tri::kFalse;
  if (AnyStatement(surviving, [&](const std::vector<Word>& st, int depth) { return PlainlyCode(st, depth, source); })) {
    return Tri::kTrue;
  }
  return std::nullopt;
}

}  // namespace

std::vector<KernelBody> QuickKernels(std::string_view contents, const ParsedSource& source,
                                     const std::vector<Branch>& branches, size_t arch_count) {
  (void)contents;  // the bytes `source` views
  std::vector<KernelBody> out;
  std::optional<std::set<std::string_view>> defined;  // made for the first kernel with a branch
  for (const FunctionDef& kernel : source.functions) {
    if (!kernel.is_kernel) continue;
    KernelBody k{kernel.name, kernel.line, kernel.column, kernel.body_begin, kernel.body_end, {}, {}};
    k.gates = GatesInside(branches, kernel.body_begin, kernel.body_end);
    if (k.gates.empty()) continue;
    if (!defined) defined = DefinedNames(source);
    // The body's tokens with the innermost branch holding each (-1: none), so each arch's pass
    // reads a verdict instead of searching the branches again.
    std::vector<std::pair<Word, int>> body;
    bool expands = false;  // a name the file #defines
    for (size_t i = FirstTokenAt(source.tokens, kernel.body_begin); i < source.tokens.size(); ++i) {
      const Token& t = source.tokens[i];
      if (t.begin >= kernel.body_end) break;
      if (t.begin <= kernel.body_begin || t.end >= kernel.body_end) continue;
      if (source.on_directive[i] || t.kind == Token::Kind::kComment) continue;
      body.emplace_back(Word{t.kind, source.Spelling(t)}, InnermostBranch(branches, t.begin));
      expands = expands || (t.kind == Token::Kind::kIdentifier && defined->count(body.back().first.text));
    }
    std::vector<Tri> settled;
    k.settled = !expands && InnermostBranch(branches, kernel.body_begin) < 0;
    for (size_t a = 0; a < arch_count; ++a) {
      std::vector<Word> surviving;
      bool unknown = false;
      for (const auto& [word, branch] : body) {
        const Tri survives = branch < 0 ? Tri::kTrue : branches[branch].verdict[a];
        unknown = unknown || survives == Tri::kUnknown;
        if (survives == Tri::kTrue) surviving.push_back(word);
      }
      k.has_code.push_back(HasRealStatement(surviving) ? Tri::kTrue : unknown ? Tri::kUnknown : Tri::kFalse);
      if (!k.settled) continue;
      const std::optional<Tri> verdict = SettledVerdict(k, branches, a, surviving, source);
      k.settled = verdict.has_value();
      if (verdict) settled.push_back(*verdict);
    }
    if (k.settled) k.has_code = std::move(settled);
    out.push_back(std::move(k));
  }
  return out;
}

}  // namespace archpatch::hazard
