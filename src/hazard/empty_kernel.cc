#include "hazard/empty_kernel.h"

#include <algorithm>
#include <map>
#include <memory>
#include <set>

#include <spdlog/spdlog.h>

namespace archpatch::hazard {
namespace {

bool Within(const std::vector<std::pair<size_t, size_t>>& spans, const Token& t) {
  for (const auto& [begin, end] : spans) {
    if (t.begin >= begin && t.end <= end) return true;
  }
  return false;
}

// Whether the kernel, as `parse` saw it (one arch's macros), keeps a token of real code: one the
// preprocessor kept, not on a directive line, outside declarations, returns and null statements.
bool HasRealCode(const ParsedSource& parse, const std::vector<bool>& directive, const FunctionDef& fn) {
  for (size_t i = 0; i < parse.tokens.size(); ++i) {
    const Token& t = parse.tokens[i];
    if (t.begin <= fn.body_begin || t.end >= fn.body_end) continue;  // the braces, and outside
    if (directive[i] || t.kind == Token::Kind::kComment || t.spelling == ";") continue;
    if (Within(parse.skipped, t) || Within(fn.trivial_statements, t)) continue;
    return true;
  }
  return false;
}

const FunctionDef* FindKernel(const ParsedSource& parse, const FunctionDef& kernel) {
  for (const FunctionDef& f : parse.functions) {
    if (f.name == kernel.name && f.body_begin == kernel.body_begin) return &f;
  }
  return nullptr;
}

// One parse per arch, made on first use and shared by every kernel of the file.
class ArchParses {
 public:
  ArchParses(const std::string& path, std::string_view contents, const std::vector<arch::Arch>& arches)
      : path_(path), contents_(contents), arches_(arches) {}

  const ParsedSource* Get(size_t arch_index) {
    auto it = parses_.find(arch_index);
    if (it != parses_.end()) return it->second.get();
    Result<ParsedSource> parse = Parse(path_, contents_, DeviceDefines(arches_[arch_index]));
    std::unique_ptr<ParsedSource> owned;
    if (parse) {
      owned = std::make_unique<ParsedSource>(std::move(*parse));
      directive_[arch_index] = DirectiveTokens(contents_, owned->tokens);
    } else {
      spdlog::warn("{}", parse.error().str());
    }
    return (parses_[arch_index] = std::move(owned)).get();
  }

  const std::vector<bool>& Directive(size_t arch_index) { return directive_[arch_index]; }

 private:
  const std::string& path_;
  std::string_view contents_;
  const std::vector<arch::Arch>& arches_;
  std::map<size_t, std::unique_ptr<ParsedSource>> parses_;
  std::map<size_t, std::vector<bool>> directive_;
};

std::vector<int> GatesInside(const std::vector<Branch>& branches, size_t begin, size_t end) {
  std::vector<int> out;
  for (size_t i = 0; i < branches.size(); ++i) {
    if (branches[i].directive_begin > begin && branches[i].directive_begin < end) {
      out.push_back(static_cast<int>(i));
    }
  }
  return out;
}

Tri VerdictFor(ArchParses& parses, size_t arch_index, const FunctionDef& kernel) {
  const ParsedSource* parse = parses.Get(arch_index);
  if (!parse) return Tri::kUnknown;
  const FunctionDef* fn = FindKernel(*parse, kernel);
  if (!fn) return Tri::kUnknown;
  return TriOf(HasRealCode(*parse, parses.Directive(arch_index), *fn));
}

}  // namespace

std::vector<KernelBody> AnalyzeKernels(const std::string& path, std::string_view contents,
                                       const ParsedSource& host, const std::vector<Branch>& branches,
                                       const std::vector<arch::Arch>& arches) {
  std::vector<KernelBody> out;
  ArchParses parses(path, contents, arches);
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

// Tokens that start a declaration (or another statement that compiles to no code of its own).
bool StartsDeclaration(const std::string& s) {
  static const std::set<std::string> kWords = {
      "int", "unsigned", "signed", "long", "short", "char", "float", "double", "bool", "auto", "void",
      "const", "constexpr", "static", "volatile", "register", "__shared__", "__align__", "extern",
      "using", "typedef", "static_assert", "namespace", "typename", "struct", "class", "enum", "return"};
  return kWords.count(s) > 0;
}

// `Type name ...`: a (qualified, templated) type name, cv/pointer marks, then the declared name.
bool LooksLikeDeclaration(const std::vector<const Token*>& st) {
  if (st.empty() || StartsDeclaration(st[0]->spelling)) return true;
  size_t i = 0;
  if (st[0]->kind != Token::Kind::kIdentifier) return false;
  for (++i; i < st.size();) {
    const std::string& s = st[i]->spelling;
    if (s == "::" && i + 1 < st.size()) {
      i += 2;
    } else if (s == "<") {  // template arguments
      int depth = 0;
      for (; i < st.size(); ++i) {
        if (st[i]->spelling == "<") ++depth;
        if (st[i]->spelling == ">") --depth;
        if (st[i]->spelling == ">>") depth -= 2;
        if (depth <= 0) break;
      }
      ++i;
    } else if (s == "*" || s == "&" || s == "const" || s == "volatile" || s == "__restrict__") {
      ++i;
    } else {
      break;
    }
  }
  return i < st.size() && st[i]->kind == Token::Kind::kIdentifier && i > 0;
}

// Whether the surviving tokens hold a statement that is real code.
bool HasRealStatement(const std::vector<const Token*>& tokens) {
  std::vector<const Token*> statement;
  int parens = 0;
  for (const Token* t : tokens) {
    const std::string& s = t->spelling;
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
  std::vector<KernelBody> out;
  const std::vector<bool> directive = DirectiveTokens(contents, source.tokens);
  for (const FunctionDef& kernel : source.functions) {
    if (!kernel.is_kernel) continue;
    KernelBody k{kernel.name, kernel.line, kernel.column, kernel.body_begin, kernel.body_end, {}, {}};
    k.gates = GatesInside(branches, kernel.body_begin, kernel.body_end);
    if (k.gates.empty()) continue;
    std::vector<std::pair<const Token*, std::vector<Tri>>> body;
    for (size_t i = 0; i < source.tokens.size(); ++i) {
      const Token& t = source.tokens[i];
      if (t.begin <= kernel.body_begin || t.end >= kernel.body_end) continue;
      if (directive[i] || t.kind == Token::Kind::kComment) continue;
      body.emplace_back(&t, SurvivesAt(branches, t.begin, arch_count));
    }
    for (size_t a = 0; a < arch_count; ++a) {
      std::vector<const Token*> surviving;
      bool unknown = false;
      for (const auto& [t, survives] : body) {
        unknown = unknown || survives[a] == Tri::kUnknown;
        if (survives[a] == Tri::kTrue) surviving.push_back(t);
      }
      k.has_code.push_back(HasRealStatement(surviving) ? Tri::kTrue : unknown ? Tri::kUnknown : Tri::kFalse);
    }
    out.push_back(std::move(k));
  }
  return out;
}

}  // namespace archpatch::hazard
