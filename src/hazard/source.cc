#include "hazard/source.h"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <memory>
#include <tuple>

#include <clang-c/Index.h>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "cuda/functions.h"
#include "cuda/libclang.h"
#include "cuda/tokens.h"
#include "hazard/branches.h"
#include "util/identifier.h"

namespace archpatch::hazard {
namespace {

// The CUDA keywords come from cuda_runtime.h, which a standalone parse does not read; these
// are what its host_defines.h expands them to, so libclang still sees CUDAGlobalAttr & co.
const char* const kCudaKeywordDefines[] = {
    "-D__global__=__attribute__((global))",
    "-D__device__=__attribute__((device))",
    "-D__host__=__attribute__((host))",
    "-D__shared__=__attribute__((shared))",
    "-D__constant__=__attribute__((constant))",
    "-D__managed__=__attribute__((managed))",
    "-D__forceinline__=__inline__ __attribute__((always_inline))",
    "-D__noinline__=__attribute__((noinline))",
    "-D__launch_bounds__(...)=__attribute__((launch_bounds(__VA_ARGS__)))",
    "-D__grid_constant__=",
};

std::string ToString(CXString s) {
  const char* c = clang_getCString(s);
  std::string out = c ? c : "";
  clang_disposeString(s);
  return out;
}

size_t OffsetOf(CXSourceLocation loc) {
  unsigned offset = 0;
  clang_getFileLocation(loc, nullptr, nullptr, nullptr, &offset);
  return offset;
}

Token::Kind KindOf(CXTokenKind kind) {
  switch (kind) {
    case CXToken_Punctuation: return Token::Kind::kPunctuation;
    case CXToken_Keyword: return Token::Kind::kKeyword;
    case CXToken_Identifier: return Token::Kind::kIdentifier;
    case CXToken_Literal: return Token::Kind::kLiteral;
    case CXToken_Comment: return Token::Kind::kComment;
  }
  return Token::Kind::kPunctuation;
}

// Kind and byte offsets only: spellings and lines come from the file's bytes and line index.
std::vector<Token> AllTokens(CXTranslationUnit tu, CXFile file, size_t size) {
  CXSourceRange whole = clang_getRange(clang_getLocationForOffset(tu, file, 0),
                                       clang_getLocationForOffset(tu, file, static_cast<unsigned>(size)));
  CXToken* raw = nullptr;
  unsigned count = 0;
  clang_tokenize(tu, whole, &raw, &count);
  std::vector<Token> tokens;
  tokens.reserve(count);
  for (unsigned i = 0; i < count; ++i) {
    CXSourceRange extent = clang_getTokenExtent(tu, raw[i]);
    tokens.push_back({KindOf(clang_getTokenKind(raw[i])), static_cast<uint32_t>(OffsetOf(clang_getRangeStart(extent))),
                      static_cast<uint32_t>(OffsetOf(clang_getRangeEnd(extent)))});
  }
  clang_disposeTokens(tu, raw, count);
  return tokens;
}

void IndexFunctions(ParsedSource& out) {
  for (size_t i = 0; i < out.functions.size(); ++i) out.functions_by_name[out.functions[i].name].push_back(i);
}

// The per-file indexes every check shares (source.h): built once, after the tokens and functions.
void IndexSource(ParsedSource& out) {
  out.on_directive = DirectiveTokens(out.contents, out.tokens);
  IndexFunctions(out);
  std::sort(out.skipped.begin(), out.skipped.end());
}

bool IsFunctionKind(CXCursorKind kind) {
  return kind == CXCursor_FunctionDecl || kind == CXCursor_FunctionTemplate || kind == CXCursor_CXXMethod ||
         kind == CXCursor_Constructor;
}

bool IsTypeKind(CXCursorKind kind) {
  return kind == CXCursor_StructDecl || kind == CXCursor_ClassDecl || kind == CXCursor_UnionDecl ||
         kind == CXCursor_EnumDecl || kind == CXCursor_ClassTemplate || kind == CXCursor_TypedefDecl ||
         kind == CXCursor_TypeAliasDecl || kind == CXCursor_TemplateTypeParameter ||
         kind == CXCursor_TypeAliasTemplateDecl;
}

struct Collector {
  CXFile file;
  ParsedSource* out;
};

std::pair<size_t, size_t> ExtentOf(CXCursor cursor) {
  CXSourceRange r = clang_getCursorExtent(cursor);
  return {OffsetOf(clang_getRangeStart(r)), OffsetOf(clang_getRangeEnd(r))};
}

// Collects the declarations, returns and null statements of a compound statement, nested
// blocks included; anything else is real code and shows up as tokens outside these ranges.
void CollectTrivial(CXCursor compound, std::vector<std::pair<size_t, size_t>>& out) {
  clang_visitChildren(
      compound,
      [](CXCursor child, CXCursor, CXClientData data) {
        auto* spans = static_cast<std::vector<std::pair<size_t, size_t>>*>(data);
        switch (clang_getCursorKind(child)) {
          case CXCursor_CompoundStmt: CollectTrivial(child, *spans); break;
          case CXCursor_DeclStmt:
          case CXCursor_ReturnStmt:
          case CXCursor_NullStmt: spans->push_back(ExtentOf(child)); break;
          default: break;
        }
        return CXChildVisit_Continue;
      },
      &out);
}

// Finds the body (a CompoundStmt child) and a CUDAGlobalAttr child of a function cursor.
void DescribeFunction(CXCursor cursor, FunctionDef& def, bool& has_body) {
  struct Probe {
    FunctionDef* def;
    bool* has_body;
  } probe{&def, &has_body};
  clang_visitChildren(
      cursor,
      [](CXCursor child, CXCursor, CXClientData data) {
        auto* p = static_cast<Probe*>(data);
        CXCursorKind kind = clang_getCursorKind(child);
        if (kind == CXCursor_CUDAGlobalAttr) p->def->is_kernel = true;
        if (kind == CXCursor_CompoundStmt) {
          std::tie(p->def->body_begin, p->def->body_end) = ExtentOf(child);
          CollectTrivial(child, p->def->trivial_statements);
          *p->has_body = true;
        }
        return CXChildVisit_Continue;
      },
      &probe);
}

CXChildVisitResult Visit(CXCursor cursor, CXCursor, CXClientData data) {
  auto* c = static_cast<Collector*>(data);
  CXSourceLocation loc = clang_getCursorLocation(cursor);
  CXFile file = nullptr;
  unsigned line = 0, column = 0, offset = 0;
  clang_getFileLocation(loc, &file, &line, &column, &offset);
  if (!file || !clang_File_isEqual(file, c->file)) return CXChildVisit_Continue;
  CXCursorKind kind = clang_getCursorKind(cursor);
  if (kind == CXCursor_MacroDefinition) {
    if (clang_Cursor_isMacroFunctionLike(cursor)) {
      CXSourceRange r = clang_getCursorExtent(cursor);
      c->out->macros[ToString(clang_getCursorSpelling(cursor))] = {OffsetOf(clang_getRangeStart(r)),
                                                                   OffsetOf(clang_getRangeEnd(r))};
    }
    return CXChildVisit_Continue;
  }
  if (IsTypeKind(kind)) c->out->types.insert(ToString(clang_getCursorSpelling(cursor)));
  if (IsFunctionKind(kind)) {
    FunctionDef def;
    def.name = ToString(clang_getCursorSpelling(cursor));
    def.line = static_cast<int>(line);
    def.column = static_cast<int>(column);
    bool has_body = false;
    DescribeFunction(cursor, def, has_body);
    if (has_body) c->out->functions.push_back(def);
  }
  return CXChildVisit_Recurse;
}

std::vector<std::pair<size_t, size_t>> SkippedRanges(CXTranslationUnit tu, CXFile file) {
  std::vector<std::pair<size_t, size_t>> out;
  CXSourceRangeList* list = clang_getSkippedRanges(tu, file);
  if (!list) return out;
  for (unsigned i = 0; i < list->count; ++i) {
    out.emplace_back(OffsetOf(clang_getRangeStart(list->ranges[i])), OffsetOf(clang_getRangeEnd(list->ranges[i])));
  }
  clang_disposeSourceRangeList(list);
  return out;
}

}  // namespace

std::string BlankDirectiveLines(std::string_view contents, std::initializer_list<std::string_view> directives) {
  std::string out(contents);
  size_t pos = 0;
  while (pos < out.size()) {
    size_t eol = out.find('\n', pos);
    if (eol == std::string::npos) eol = out.size();
    size_t i = out.find_first_not_of(" \t", pos);
    if (i < eol && out[i] == '#') {
      size_t j = out.find_first_not_of(" \t", i + 1);
      for (std::string_view name : directives) {
        if (j >= eol || out.compare(j, name.size(), name) != 0) continue;
        for (size_t k = pos; k < eol; ++k) {
          if (out[k] != '\r') out[k] = ' ';
        }
      }
    }
    pos = eol + 1;
  }
  return out;
}

std::string BlankIncludes(std::string_view contents) { return BlankDirectiveLines(contents, {"include"}); }

bool ParsedSource::Skipped(const Token& t) const {
  // The ranges are disjoint and sorted: only the last one starting at or before the token can hold it.
  auto after = std::upper_bound(skipped.begin(), skipped.end(), std::make_pair(size_t{t.begin}, SIZE_MAX));
  return after != skipped.begin() && std::prev(after)->second >= t.end;
}

std::vector<std::string> DeviceDefines(const arch::Arch& arch) {
  std::vector<std::string> out;
  for (const arch::Macro& m : arch::DeviceMacros(arch)) {
    out.push_back(m.value.empty() ? m.name : m.name + "=" + m.value);
  }
  return out;
}

Result<ParsedSource> Parse(const std::string& path, std::string_view contents,
                           const std::vector<std::string>& defines) {
  if (Status loaded = cuda::LoadLibclang(); !loaded) return Error{loaded.error().message, {path, 0, 0}};
  const std::string blanked = BlankIncludes(contents);
  std::vector<std::string> args = {"-x",         "cuda",       "--cuda-host-only", "-nocudainc",
                                   "-nocudalib", "-std=c++17", "-Wno-everything"};
  for (const char* d : kCudaKeywordDefines) args.push_back(d);
  for (const std::string& d : defines) args.push_back(d.rfind('-', 0) == 0 ? d : "-D" + d);
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());

  // The unsaved-file name decides the language only through -x; keep the user's path for messages.
  const std::string name = path.empty() ? "input.cu" : path;
  CXUnsavedFile unsaved{name.c_str(), blanked.data(), static_cast<unsigned long>(blanked.size())};
  std::unique_ptr<void, void (*)(void*)> index(clang_createIndex(0, 0), clang_disposeIndex);
  CXTranslationUnit tu = nullptr;
  const unsigned options = CXTranslationUnit_DetailedPreprocessingRecord | CXTranslationUnit_KeepGoing;
  CXErrorCode rc = clang_parseTranslationUnit2(index.get(), name.c_str(), argv.data(), static_cast<int>(argv.size()),
                                               &unsaved, 1, options, &tu);
  if (rc != CXError_Success || !tu) {
    return Error{fmt::format("libclang could not parse the file (error {})", static_cast<int>(rc)), {path, 0, 0}};
  }
  std::unique_ptr<CXTranslationUnitImpl, void (*)(CXTranslationUnit)> guard(tu, clang_disposeTranslationUnit);
  CXFile file = clang_getFile(tu, name.c_str());
  ParsedSource out;
  out.contents = contents;  // the blanked bytes hold the same tokens at the same offsets
  out.tokens = AllTokens(tu, file, blanked.size());
  Collector collector{file, &out};
  clang_visitChildren(clang_getTranslationUnitCursor(tu), Visit, &collector);
  out.skipped = SkippedRanges(tu, file);
  out.lines = cuda::LineIndex(out.contents);
  IndexSource(out);
  spdlog::debug("hazard: parsed {}: {} tokens, {} functions", path, out.tokens.size(), out.functions.size());
  return out;
}

namespace {

// `#define NAME(` (no space before the parenthesis): the body runs to the directive's end.
void LexMacros(ParsedSource& out) {
  const std::vector<Token>& t = out.tokens;
  const std::string_view contents = out.contents;
  auto is = [&](size_t i, std::string_view s) { return out.Spelling(t[i]) == s; };
  for (size_t i = 0; i + 3 < t.size(); ++i) {
    if (t[i].end - t[i].begin != 1 || contents[t[i].begin] != '#') continue;  // is(i, "#"), without a substr
    if (!is(i + 1, "define") || !is(i + 3, "(")) continue;
    if (t[i + 3].begin != t[i + 2].end) continue;  // object-like: `#define X (1)`
    size_t end = t[i + 3].end;
    for (size_t j = i + 4; j < t.size(); ++j) {
      if (contents.substr(t[j - 1].end, t[j].begin - t[j - 1].end).find('\n') != std::string_view::npos) {
        const std::string_view gap = contents.substr(t[j - 1].end, t[j].begin - t[j - 1].end);
        if (gap.find('\\') == std::string_view::npos) break;  // a newline no backslash continues
      }
      end = t[j].end;
    }
    out.macros[std::string(out.Spelling(t[i + 2]))] = {t[i + 2].begin, end};
  }
}

// struct X, class X, union X, enum [class] X, using X =, typedef ... X;, template <typename X>.
void LexTypes(ParsedSource& out) {
  const std::vector<Token>& t = out.tokens;
  auto spelling = [&](size_t i) { return out.Spelling(t[i]); };
  auto add = [&](size_t i) { out.types.emplace(spelling(i)); };
  for (size_t i = 0; i + 1 < t.size(); ++i) {
    if (t[i].kind != Token::Kind::kKeyword) continue;  // each word looked for is one
    const std::string_view s = spelling(i);
    if ((s == "struct" || s == "class" || s == "union" || s == "enum" || s == "typename") &&
        t[i + 1].kind == Token::Kind::kIdentifier) {
      add(i + 1);
    }
    if (s == "using" && i + 2 < t.size() && spelling(i + 2) == "=") add(i + 1);
    if (s == "typedef") {
      for (size_t j = i + 1; j < t.size() && j < i + 64; ++j) {
        if (spelling(j) == ";") {
          if (t[j - 1].kind == Token::Kind::kIdentifier) add(j - 1);
          break;
        }
      }
    }
  }
}

std::string LastComponent(const std::string& name) {
  const size_t colon = name.rfind("::");
  return colon == std::string::npos ? name : name.substr(colon + 2);
}

}  // namespace

ParsedSource LexSource(std::string_view contents) { return FromTokens(contents, cuda::Tokenize(contents)); }

ParsedSource FromTokens(std::string_view contents, std::vector<Token> tokens) {
  return FromScan(contents, std::move(tokens), cuda::LineIndex(contents), nullptr);
}

namespace {

// Where `name` stands before its parameter list in a declaration's bytes (`between`), or 0. The
// last such place: where branches give the kernel two heads (`#if ... __launch_bounds__(512) k(
// #else k( #endif`), the host parse takes the last.
size_t NameIn(std::string_view between, std::string_view name) {
  for (size_t at = between.rfind(name); at != std::string_view::npos; at = at ? between.rfind(name, at - 1) : at - 1) {
    const size_t end = at + name.size();
    const bool starts = at == 0 || !IsIdentifierChar(between[at - 1]);
    const size_t next = between.find_first_not_of(" \t\r\n", end);
    if (starts && next != std::string_view::npos && between[next] == '(') return at;
  }
  return 0;
}

// A kernel's line and column are its name's, as a parse gives them (its findings point there).
void PlaceAtName(const ParsedSource& out, size_t name, FunctionDef& def) {
  def.line = out.lines.Line(name);
  def.column = out.lines.Column(name);
}

// The functions with bodies, named by their last component; a kernel when the nearest
// `__global__` before the body declares a function of its name.
void AddFunctions(ParsedSource& out, const std::vector<cuda::KernelDecl>& kernels,
                  const std::vector<cuda::FunctionBody>& bodies) {
  out.functions.reserve(bodies.size());
  for (const cuda::FunctionBody& body : bodies) {
    FunctionDef def;
    def.name = LastComponent(body.name);
    def.body_begin = body.begin;
    def.body_end = body.end;
    def.line = out.lines.Line(body.begin);
    def.column = out.lines.Column(body.begin);
    auto after = std::lower_bound(kernels.begin(), kernels.end(), body.begin,
                                  [](const cuda::KernelDecl& k, size_t offset) { return k.offset < offset; });
    if (after != kernels.begin()) {
      const cuda::KernelDecl& k = *std::prev(after);
      const std::string_view between = out.contents.substr(k.offset, body.begin - k.offset);
      def.is_kernel = LastComponent(k.name) == def.name && between.find('{') == std::string_view::npos &&
                      between.find(';') == std::string_view::npos;
      if (def.is_kernel) PlaceAtName(out, k.offset + NameIn(between, def.name), def);
    }
    out.functions.push_back(std::move(def));
  }
}

}  // namespace

ParsedSource FromScan(std::string_view contents, std::vector<Token> tokens, cuda::LineIndex lines,
                      const cuda::AllFunctions* functions, SharedLoops* loops) {
  ParsedSource out;
  out.contents = contents;
  out.tokens = std::move(tokens);
  out.lines = std::move(lines);
  // Four passes over the tokens, each filling fields of its own: on a file of half a MiB or more
  // they are offered to the round's idle workers (CUTLASS's 2.9 MB header: 29 M instructions in
  // turn; its 1 MB mma_sm90_gmma.hpp, below the MiB this was, ended the round on 16 cores).
  auto pass = [&](size_t which) {
    switch (which) {
      case 0:
        if (functions) {
          AddFunctions(out, functions->kernels, functions->plain);
        } else {
          const cuda::FileFunctions found = cuda::FindKernelsAndBodies(out.tokens, contents);
          AddFunctions(out, found.kernels, found.bodies);
        }
        return IndexFunctions(out);
      case 1: return LexMacros(out);
      case 2: return LexTypes(out);
      default: out.on_directive = DirectiveTokens(out.contents, out.tokens);
    }
  };
  constexpr size_t kPasses = 4, kSharedFrom = 512 << 10;
  if (loops && contents.size() >= kSharedFrom) {
    loops->Run(kPasses, pass);
  } else {
    for (size_t p = 0; p < kPasses; ++p) pass(p);
  }
  return out;  // `skipped` stays empty: no preprocessor ran
}

}  // namespace archpatch::hazard
