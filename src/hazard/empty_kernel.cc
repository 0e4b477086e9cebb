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

// Whether the surviving tokens hold a statement that is real code.
bool HasRealStatement(const std::vector<Word>& tokens) {
  std::vector<Word> statement;
  int parens = 0;
  for (const Word& t : tokens) {
    const std::string_view s = t.text;
    if (parens == 0 && (s == "{" || s == "}")) {  // blocks are transparent: look at what they hold
      if (!statement.empty() && !LooksLikeDeclaration(statement)) return true;
      statement.clear();
      continue;
    }
    if (s == "(" || s == "[") ++parens;
    if (s == ")" || s == "]") --parens;
    if (parens == 0 && s == ";") {
      if (!statement.empty() && !LooksLikeDeclaration(statement)) return true;
      statement.clear();
      continue;
    }
    statement.push_back(t);
  }
  return !statement.empty() && !LooksLikeDeclaration(statement);
}

}  // namespace

std::vector<KernelBody> QuickKernels(std::string_view contents, const ParsedSource& source,
                                     const std::vector<Branch>& branches, size_t arch_count) {
  (void)contents;  // the bytes `source` views
  std::vector<KernelBody> out;
  for (const FunctionDef& kernel : source.functions) {
    if (!kernel.is_kernel) continue;
    KernelBody k{kernel.name, kernel.line, kernel.column, kernel.body_begin, kernel.body_end, {}, {}};
    k.gates = GatesInside(branches, kernel.body_begin, kernel.body_end);
    if (k.gates.empty()) continue;
    // The body's tokens with the innermost branch holding each (-1: none), so each arch's pass
    // reads a verdict instead of searching the branches again.
    std::vector<std::pair<Word, int>> body;
    for (size_t i = FirstTokenAt(source.tokens, kernel.body_begin); i < source.tokens.size(); ++i) {
      const Token& t = source.tokens[i];
      if (t.begin >= kernel.body_end) break;
      if (t.begin <= kernel.body_begin || t.end >= kernel.body_end) continue;
      if (source.on_directive[i] || t.kind == Token::Kind::kComment) continue;
      body.emplace_back(Word{t.kind, source.Spelling(t)}, InnermostBranch(branches, t.begin));
    }
    for (size_t a = 0; a < arch_count; ++a) {
      std::vector<Word> surviving;
      bool unknown = false;
      for (const auto& [word, branch] : body) {
        const Tri survives = branch < 0 ? Tri::kTrue : branches[branch].verdict[a];
        unknown = unknown || survives == Tri::kUnknown;
        if (survives == Tri::kTrue) surviving.push_back(word);
      }
      k.has_code.push_back(HasRealStatement(surviving) ? Tri::kTrue : unknown ? Tri::kUnknown : Tri::kFalse);
    }
    out.push_back(std::move(k));
  }
  return out;
}

}  // namespace archpatch::hazard
