#include "cuda/runtime_gates.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cctype>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include <clang-c/Index.h>
#include <fmt/format.h>

#include "cuda/directives.h"
#include "cuda/header_constants.h"
#include "cuda/libclang.h"
#include "cuda/runtime_eval.h"
#include "cuda/runtime_relevance.h"
#include "cuda/runtime_tokens.h"
#include "cuda/tokens.h"

namespace archpatch::cuda {
namespace {

// CUDA keywords read as nothing, and the std names host checks throw, so that files parse as
// plain C++ without any header (clang would otherwise drop a statement whose throw is invalid).
constexpr std::string_view kPrelude = R"(
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __shared__
#define __constant__
#define __managed__
#define __restrict__
#define __launch_bounds__(...)
namespace std {
struct string { string(const char*); };
struct exception { template <class... A> exception(A&&...); };
struct runtime_error : exception { template <class... A> runtime_error(A&&...); };
struct invalid_argument : exception { template <class... A> invalid_argument(A&&...); };
struct logic_error : exception { template <class... A> logic_error(A&&...); };
struct out_of_range : exception { template <class... A> out_of_range(A&&...); };
}
)";
const char* const kArgs[] = {
    "-x", "c++", "-std=c++20", "-nostdinc", "-nostdinc++", "-ferror-limit=0", "-Wno-everything"};

std::string Spelling(CXCursor c) {
  CXString s = clang_getCursorSpelling(c);
  std::string out = clang_getCString(s);
  clang_disposeString(s);
  return out;
}

std::vector<CXCursor> Children(CXCursor c) {
  std::vector<CXCursor> out;
  clang_visitChildren(
      c,
      [](CXCursor child, CXCursor, CXClientData data) {
        static_cast<std::vector<CXCursor>*>(data)->push_back(child);
        return CXChildVisit_Continue;
      },
      &out);
  return out;
}

// Implicit casts and parentheses (UnexposedExpr, ParenExpr) with one child: look through.
CXCursor Strip(CXCursor c) {
  while (true) {
    CXCursorKind k = clang_getCursorKind(c);
    if (k != CXCursor_UnexposedExpr && k != CXCursor_ParenExpr) return c;
    std::vector<CXCursor> kids = Children(c);
    if (kids.size() != 1) return c;
    c = kids[0];
  }
}

// The called name of a call, including calls clang could not resolve (unknown macros): the
// recovery node's first child names the callee.
std::string CalleeName(CXCursor c, std::vector<CXCursor>& args) {
  CXCursorKind k = clang_getCursorKind(c);
  if (k != CXCursor_CallExpr && k != CXCursor_UnexposedExpr) return "";
  std::vector<CXCursor> kids = Children(c);
  if (kids.empty()) return "";
  CXCursor callee = Strip(kids[0]);
  std::string name = Spelling(callee);
  if (name.empty()) {
    for (CXCursor g : Children(callee)) {
      if (clang_getCursorKind(g) == CXCursor_OverloadedDeclRef) name = Spelling(g);
    }
  }
  if (k == CXCursor_CallExpr && name.empty()) name = Spelling(c);
  if (name.empty() || clang_getCursorKind(callee) == CXCursor_IntegerLiteral) return "";
  args.assign(kids.begin() + 1, kids.end());
  return name;
}

// toupper of the C locale (the one archpatch runs in), without a call per byte.
char AsciiUpper(char c) { return c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c; }

}  // namespace

std::string UpperCase(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = AsciiUpper(c);
  return out;
}

bool IsCheckName(std::string_view name) {
  if (name == "assert") return false;
  static constexpr std::string_view kWords[] = {"CHECK", "ASSERT", "REQUIRE", "ENSURE"};
  // Bit w: kWords[w] starts with the letter, in either case. This runs on every name of a file,
  // three times; most of a name's letters start no word and cost one look each.
  static const std::array<uint8_t, 256> kFirst = [] {
    std::array<uint8_t, 256> first{};
    for (size_t w = 0; w < std::size(kWords); ++w) {
      const auto upper = static_cast<unsigned char>(kWords[w][0]);
      first[upper] |= static_cast<uint8_t>(1u << w);
      first[upper - 'A' + 'a'] |= static_cast<uint8_t>(1u << w);
    }
    return first;
  }();
  constexpr size_t kShortest = 5;  // CHECK
  for (size_t i = 0; i + kShortest <= name.size(); ++i) {
    for (unsigned words = kFirst[static_cast<unsigned char>(name[i])]; words != 0; words &= words - 1) {
      const std::string_view word = kWords[std::countr_zero(words)];
      if (name.size() - i < word.size()) continue;
      size_t k = 1;
      while (k < word.size() && AsciiUpper(name[i + k]) == word[k]) ++k;
      if (k == word.size()) return true;
    }
  }
  return false;
}

namespace {

// CHECK_EQ(a, b) and friends: the comparison the suffix names.
std::optional<CXBinaryOperatorKind> CheckSuffix(std::string_view name) {
  static constexpr std::pair<std::string_view, CXBinaryOperatorKind> kSuffixes[] = {
      {"_EQ", CXBinaryOperator_EQ}, {"_NE", CXBinaryOperator_NE}, {"_LT", CXBinaryOperator_LT},
      {"_LE", CXBinaryOperator_LE}, {"_GT", CXBinaryOperator_GT}, {"_GE", CXBinaryOperator_GE}};
  for (const auto& [suffix, op] : kSuffixes) {
    if (name.size() > suffix.size() && name.substr(name.size() - suffix.size()) == suffix) return op;
  }
  return std::nullopt;
}

// A value while evaluating for one arch: an integer, a truth value, or a capability whose scale
// (major, major*10+minor, major*100+minor*10) is read from the number it is compared with.
struct Value {
  enum class Kind { kInt, kTri, kScalar, kUnknown } kind = Kind::kUnknown;
  long long n = 0;
  Tri t = Tri::kUnknown;
};

Value Int(long long n) { return {Value::Kind::kInt, n, Tri::kUnknown}; }
Value Truth(Tri t) { return {Value::Kind::kTri, 0, t}; }

std::optional<long long> Constant(CXCursor c) {
  CXEvalResult r = clang_Cursor_Evaluate(c);
  if (!r) return std::nullopt;
  std::optional<long long> out;
  if (clang_EvalResult_getKind(r) == CXEval_Int) out = clang_EvalResult_getAsLongLong(r);
  clang_EvalResult_dispose(r);
  return out;
}

// The documented scale rule (docs/audit.md): below 30 a major version, below 300 an SM number
// (major*10+minor), otherwise a __CUDA_ARCH__-style value (major*100+minor*10).
long long Scaled(const arch::Arch& a, long long compared_with) {
  if (compared_with < 30) return a.major;
  if (compared_with < 300) return a.major * 10 + a.minor;
  return a.major * 100 + a.minor * 10;
}

Tri Compare(CXBinaryOperatorKind op, long long l, long long r) {
  switch (op) {
    case CXBinaryOperator_LT: return TriOf(l < r);
    case CXBinaryOperator_GT: return TriOf(l > r);
    case CXBinaryOperator_LE: return TriOf(l <= r);
    case CXBinaryOperator_GE: return TriOf(l >= r);
    case CXBinaryOperator_EQ: return TriOf(l == r);
    case CXBinaryOperator_NE: return TriOf(l != r);
    default: return Tri::kUnknown;
  }
}

class Evaluator {
 public:
  explicit Evaluator(const arch::Arch& a) : arch_(a) {}
  bool saw_capability = false;  // a capability was compared with a number

  Value Eval(CXCursor c) {
    c = Strip(c);
    switch (clang_getCursorKind(c)) {
      case CXCursor_BinaryOperator: return Binary(c);
      case CXCursor_UnaryOperator: return Unary(c);
      case CXCursor_IntegerLiteral:
      case CXCursor_CXXBoolLiteralExpr: return Literal(c);
      case CXCursor_StringLiteral: return Truth(Tri::kTrue);  // `assert(cond && "why")`
      default: return Leaf(c);
    }
  }

  Value CompareValues(CXBinaryOperatorKind op, Value l, Value r) {
    if (l.kind == Value::Kind::kScalar && r.kind == Value::Kind::kInt) l = Int(Scaled(arch_, r.n));
    if (r.kind == Value::Kind::kScalar && l.kind == Value::Kind::kInt) r = Int(Scaled(arch_, l.n));
    if (l.kind != Value::Kind::kInt || r.kind != Value::Kind::kInt) return Truth(Tri::kUnknown);
    return Truth(Compare(op, l.n, r.n));
  }

 private:
  Value Literal(CXCursor c) {
    std::optional<long long> n = Constant(c);
    return n ? Int(*n) : Value{};
  }

  Value Leaf(CXCursor c) {
    std::vector<CXCursor> args;
    std::string name = Spelling(c);
    if (name.empty() && clang_getCursorKind(c) == CXCursor_DeclRefExpr) {
      for (CXCursor g : Children(c)) {  // an unresolved call: getSMVersion()
        if (clang_getCursorKind(g) == CXCursor_OverloadedDeclRef) name = Spelling(g);
      }
    }
    std::string callee = CalleeName(c, args);
    if (!callee.empty()) name = callee;
    if (!name.empty() && IsCapabilityName(name)) {
      saw_capability_ref_ = true;
      std::string lower;
      for (char ch : name) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      if (lower.find("minor") != std::string::npos) return Int(arch_.minor);
      if (lower.find("major") != std::string::npos) return Int(arch_.major);
      return {Value::Kind::kScalar, 0, Tri::kUnknown};
    }
    std::optional<long long> n = Constant(c);  // enum constants, constexpr ints
    return n ? Int(*n) : Value{};
  }

  Value Unary(CXCursor c) {
    std::vector<CXCursor> kids = Children(c);
    if (kids.size() != 1) return {};
    Value v = Eval(kids[0]);
    if (clang_getCursorUnaryOperatorKind(c) == CXUnaryOperator_LNot) {
      return v.kind == Value::Kind::kTri   ? Truth(TriNot(v.t))
             : v.kind == Value::Kind::kInt ? Truth(TriOf(v.n == 0))
                                           : Value{};
    }
    if (clang_getCursorUnaryOperatorKind(c) == CXUnaryOperator_Minus && v.kind == Value::Kind::kInt) return Int(-v.n);
    return {};
  }

  Value Binary(CXCursor c) {
    std::vector<CXCursor> kids = Children(c);
    if (kids.size() != 2) return {};
    CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(c);
    bool before = saw_capability_ref_;
    saw_capability_ref_ = false;
    Value l = Eval(kids[0]), r = Eval(kids[1]);
    bool refs = saw_capability_ref_;
    saw_capability_ref_ = before || refs;
    switch (op) {
      case CXBinaryOperator_LAnd: return Truth(TriAnd(AsTri(l), AsTri(r)));
      case CXBinaryOperator_LOr: return Truth(TriOr(AsTri(l), AsTri(r)));
      case CXBinaryOperator_Add:
      case CXBinaryOperator_Sub:
      case CXBinaryOperator_Mul:
        if (l.kind != Value::Kind::kInt || r.kind != Value::Kind::kInt) return {};
        return Int(op == CXBinaryOperator_Add ? l.n + r.n : op == CXBinaryOperator_Sub ? l.n - r.n : l.n * r.n);
      default: break;
    }
    Value v = CompareValues(op, l, r);
    if (refs && v.t != Tri::kUnknown) saw_capability = true;
    return v;
  }

  static Tri AsTri(const Value& v) {
    if (v.kind == Value::Kind::kTri) return v.t;
    if (v.kind == Value::Kind::kInt) return TriOf(v.n != 0);
    return Tri::kUnknown;
  }

  const arch::Arch& arch_;
  bool saw_capability_ref_ = false;
};

// What the gate tests, per arch: `condition` (or a comparison of two CHECK_xx arguments); a
// gate "passes" an arch when the check lets it through.
struct Gate {
  CXCursor node;               // the condition (or the whole CHECK_xx call)
  std::vector<CXCursor> pair;  // CHECK_xx: the two compared arguments
  CXBinaryOperatorKind op = CXBinaryOperator_EQ;
  bool refuse_when_true = false;  // if (cond) return/throw: passes when cond is false
  std::string form, check;
};

struct Walk {
  std::string_view contents;
  const std::string& file;
  const std::vector<arch::Arch>& arches;
  LineIndex lines;
  std::vector<Finding> findings;
  std::string function;

  bool Refuses(CXCursor stmt) {
    stmt = Strip(stmt);
    CXCursorKind k = clang_getCursorKind(stmt);
    if (k == CXCursor_CompoundStmt) {
      std::vector<CXCursor> kids = Children(stmt);
      if (kids.empty() || !Refuses(kids.back())) return false;
      if (clang_getCursorKind(Strip(kids.back())) == CXCursor_CXXThrowExpr) return true;
      // `return;` after work ends a path; after nothing but logging it refuses.
      return std::all_of(kids.begin(), kids.end() - 1, [](CXCursor c) { return IsLoggingCall(c); });
    }
    if (k == CXCursor_ContinueStmt || k == CXCursor_CXXThrowExpr) return true;
    if (k != CXCursor_ReturnStmt) return false;
    std::vector<CXCursor> kids = Children(stmt);
    if (kids.empty()) return true;  // return;
    CXCursor v = Strip(kids[0]);
    if (clang_getCursorKind(v) == CXCursor_CXXBoolLiteralExpr ||
        clang_getCursorKind(v) == CXCursor_CXXNullPtrLiteralExpr) {
      std::optional<long long> n = Constant(v);
      return !n || *n == 0;
    }
    std::string name = Spelling(v);
    return name.find("rror") != std::string::npos || name.find("nsupported") != std::string::npos ||
           name.find("NOT_SUPPORTED") != std::string::npos;
  }

  static bool IsLoggingCall(CXCursor c) {
    std::vector<CXCursor> args;
    std::string name = CalleeName(Strip(c), args);
    for (char& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return name.find("log") != std::string::npos || name.find("warn") != std::string::npos ||
           name.find("print") != std::string::npos;
  }

  void Record(const Gate& g) {
    std::vector<Tri> verdict;
    bool capability = false;
    for (const arch::Arch& a : arches) {
      Evaluator e(a);
      Value v = g.pair.empty() ? e.Eval(g.node) : e.CompareValues(g.op, e.Eval(g.pair[0]), e.Eval(g.pair[1]));
      // CHECK_xx(a, b): a capability on either side, compared by the suffix.
      if (!g.pair.empty()) capability |= IsCapabilityRef(g.pair[0]) || IsCapabilityRef(g.pair[1]);
      capability |= e.saw_capability;
      Tri t = v.kind == Value::Kind::kTri ? v.t : Tri::kUnknown;
      verdict.push_back(g.refuse_when_true ? TriNot(t) : t);
    }
    bool known = std::any_of(verdict.begin(), verdict.end(), [](Tri t) { return t != Tri::kUnknown; });
    if (!capability || !known) return;
    CXSourceRange r = clang_getCursorExtent(g.node);
    unsigned b = 0, e = 0;
    clang_getFileLocation(clang_getRangeStart(r), nullptr, nullptr, nullptr, &b);
    clang_getFileLocation(clang_getRangeEnd(r), nullptr, nullptr, nullptr, &e);
    if (b < kPrelude.size() || e <= b) return;
    b -= kPrelude.size(), e -= kPrelude.size();
    if (e > contents.size()) return;
    Finding f;
    f.file = file;
    f.line = lines.Line(b), f.column = lines.Column(b);
    f.kind = gate::Kind::kCppRuntimeGate;
    f.text = std::string(contents.substr(b, e - b));
    f.span = {b, e};
    f.scope = function;
    for (size_t i = 0; i < arches.size(); ++i) f.verdict.push_back({arches[i].name(), verdict[i]});
    f.form = gate::RuntimeForm{g.form, g.check};
    f.direction = g.refuse_when_true ? gate::Direction::kRefuses : gate::Direction::kEnables;
    findings.push_back(std::move(f));
  }

  static bool IsCapabilityRef(CXCursor c) {
    std::vector<CXCursor> args;
    c = Strip(c);
    std::string name = CalleeName(c, args);
    if (name.empty()) name = Spelling(c);
    return IsCapabilityName(name);  // CHECK_xx arguments: plain names or getter calls
  }

  void Visit(CXCursor c) {
    CXCursorKind k = clang_getCursorKind(c);
    std::string saved = function;
    if (k == CXCursor_FunctionDecl || k == CXCursor_CXXMethod || k == CXCursor_Constructor ||
        k == CXCursor_FunctionTemplate || k == CXCursor_Destructor) {
      function = Spelling(c);
    }
    std::vector<CXCursor> args;
    std::string callee = CalleeName(c, args);
    if (k == CXCursor_IfStmt) {
      std::vector<CXCursor> kids = Children(c);
      if (kids.size() >= 2 && Refuses(kids[1])) Record({kids[0], {}, CXBinaryOperator_EQ, true, "if-refuse", ""});
    } else if (!callee.empty() && IsCheckName(callee) && !args.empty()) {
      std::optional<CXBinaryOperatorKind> op = CheckSuffix(callee);
      if (op && args.size() >= 2) {
        Record({c, {args[0], args[1]}, *op, false, "check-macro", callee});
      } else {
        Record({args[0], {}, CXBinaryOperator_EQ, false, "check-macro", callee});
      }
    }
    for (CXCursor child : Children(c)) Visit(child);
    function = saved;
  }
};

}  // namespace

const std::vector<std::string_view>& CapabilityNeedles() {
  static const std::vector<std::string_view> needles = {"ajor", "AJOR", "inor", "INOR", "sm",       "SM",      "Sm",
                                                        "rch",  "RCH",  "cc",   "CC",   "apabilit", "APABILIT"};
  return needles;
}

const std::vector<std::string_view>& CapabilityNames() {
  static const std::vector<std::string_view> names = {"major",
                                                      "minor",
                                                      "ccmajor",
                                                      "ccminor",
                                                      "smmajor",
                                                      "smminor",
                                                      "devicemajor",
                                                      "deviceminor",
                                                      "computemajor",
                                                      "computeminor",
                                                      "capabilitymajor",
                                                      "capabilityminor",
                                                      "archmajor",
                                                      "archminor",
                                                      "sm",
                                                      "smversion",
                                                      "smver",
                                                      "smarch",
                                                      "getsmversion",
                                                      "getsm",
                                                      "getsmarch",
                                                      "currentsm",
                                                      "devicesm",
                                                      "arch",
                                                      "archversion",
                                                      "cudaarch",
                                                      "getcudaarch",
                                                      "devicearch",
                                                      "cc",
                                                      "computecapability",
                                                      "getcomputecapability",
                                                      "devicecapability",
                                                      "getdevicecapability",
                                                      "capability",
                                                      "computecap"};
  return names;
}

namespace {

// The first and last letters, the lengths and the longest length of the normal forms
// CapabilityNames lists: most names of a file are rejected at their first letter, and most of
// the rest (CUTLASS's many m-, s- and c- names) by length or last letter, before the set is searched.
struct NormalForms {
  std::set<std::string_view> names;
  std::array<bool, 256> first{};
  std::array<bool, 256> last{};
  uint64_t lengths = 0;  // bit n: some name has n letters
  size_t longest = 0;
  NormalForms() : names(CapabilityNames().begin(), CapabilityNames().end()) {
    for (std::string_view n : names) {
      first[static_cast<unsigned char>(n.front())] = true, last[static_cast<unsigned char>(n.back())] = true;
      lengths |= uint64_t{1} << n.size(), longest = std::max(longest, n.size());
    }
  }
  bool MayHold(std::string_view normal) const {
    return (lengths >> normal.size() & 1) != 0 && last[static_cast<unsigned char>(normal.back())];
  }
};

}  // namespace

bool IsCapabilityName(std::string_view name) {
  static const NormalForms kForms;
  // Reserved names (__CUDA_ARCH__) are compiler macros, never a runtime value.
  if (name.starts_with("__")) return false;
  std::string_view rest = name;
  // Member prefixes: mSM, m_sm, mMajor.
  if (rest.size() > 2 && rest[0] == 'm' && (rest[1] == '_' || (rest[1] >= 'A' && rest[1] <= 'Z')))
    rest.remove_prefix(1);
  // The normal form without a copy (this runs on every name of a file).
  char normal[24];
  size_t n = 0;
  for (char c : rest) {
    if (c == '_') continue;
    if (n == kForms.longest || n == sizeof normal) return false;
    normal[n++] = c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
    if (n == 1 && !kForms.first[static_cast<unsigned char>(normal[0])]) return false;
  }
  if (n == 0 || !kForms.MayHold(std::string_view(normal, n))) return false;
  if (kForms.names.count(std::string_view(normal, n)) == 0) return false;
  return std::any_of(CapabilityNeedles().begin(), CapabilityNeedles().end(),
                     [&](std::string_view needle) { return name.find(needle) != std::string_view::npos; });
}

namespace {

// One translation unit per thread, re-parsed for every file (no driver run after the first).
// The prelude sits in front of the file's bytes in the same buffer: single-file-parse mode (no
// header is looked for) would skip an -include.
class RuntimeParser {
 public:
  RuntimeParser() : index_(clang_createIndex(0, 0)) {
    static std::atomic<int> counter{0};
    path_ = "/archpatch-virtual/runtime" + std::to_string(counter++) + ".cc";
  }
  ~RuntimeParser() {
    if (unit_) clang_disposeTranslationUnit(unit_);
    clang_disposeIndex(index_);
  }

  CXTranslationUnit Parse(std::string_view contents) {
    buffer_.assign(kPrelude);
    buffer_.append(contents);
    CXUnsavedFile unsaved{path_.c_str(), buffer_.data(), static_cast<unsigned long>(buffer_.size())};
    if (unit_) {
      if (clang_reparseTranslationUnit(unit_, 1, &unsaved, clang_defaultReparseOptions(unit_)) == 0) return unit_;
      clang_disposeTranslationUnit(unit_);
      unit_ = nullptr;
      return nullptr;
    }
    const unsigned flags =
        CXTranslationUnit_SingleFileParse | CXTranslationUnit_KeepGoing | CXTranslationUnit_Incomplete;
    if (clang_parseTranslationUnit2(index_, path_.c_str(), kArgs, std::size(kArgs), &unsaved, 1, flags, &unit_) !=
        CXError_Success) {
      unit_ = nullptr;
    }
    return unit_;
  }

  // After a big file the unit holds memory in proportion to it; a worker idle or reading small
  // files should not keep it (each of 16 workers kept the unit of the largest file it had read).
  // The next file pays one full parse instead of a re-parse.
  void ReleaseAfter(size_t bytes) {
    if (bytes <= kKeepBytes) return;
    if (unit_) clang_disposeTranslationUnit(unit_);
    unit_ = nullptr;
    std::string().swap(buffer_);
  }

 private:
  static constexpr size_t kKeepBytes = 1 << 20;
  CXIndex index_;
  CXTranslationUnit unit_ = nullptr;
  std::string path_, buffer_;
};

// The walk's findings: one libclang parse of the file with the bodies that can hold none blanked.
Result<std::vector<Finding>> ParsedFindings(const std::string& file, std::string_view contents,
                                            const std::vector<arch::Arch>& arches, const std::vector<Token>& tokens,
                                            const std::vector<size_t>& readable) {
  if (Status loaded = LoadLibclang(); !loaded) return Error{loaded.error().message, Location{file}};
  thread_local RuntimeParser parser;
  struct Release {
    RuntimeParser& parser;
    size_t bytes;
    ~Release() { parser.ReleaseAfter(bytes); }
  } release{parser, contents.size()};
  const std::string reduced = BlankIrrelevantBodies(contents, tokens, readable);
  CXTranslationUnit unit = parser.Parse(reduced);
  if (!unit) return Error{"libclang could not parse the file", Location{file}};
  Walk walk{contents, file, arches, LineIndex(contents), {}, ""};
  for (CXCursor top : Children(clang_getTranslationUnitCursor(unit))) {
    if (clang_Location_isFromMainFile(clang_getCursorLocation(top))) walk.Visit(top);
  }
  std::vector<Finding> found = std::move(walk.findings);
  return found;
}

}  // namespace

// A check of the SM a configuration was made for (`inputs.gemm_config.sm_version == 80`) tests a
// config, not the device: TensorRT-LLM's sanity checks, no gate. (A config's constructor that
// checks the SM it is given stays: the heuristics hand it the device's SM, and users met
// "Expected SM 10x version" there, TensorRT-LLM #5018.)
bool IsConfigSanityCheck(const Finding& f) { return UpperCase(f.text).find("CONFIG") != std::string::npos; }

namespace {

// Whether the token's line is an #include. A continuation line does not start with `#`: it
// stays a candidate.
bool OnIncludeLine(std::string_view contents, size_t offset) {
  const size_t newline = contents.rfind('\n', offset);
  const size_t start = newline == std::string_view::npos ? 0 : newline + 1;
  const std::string_view line = contents.substr(start, offset - start);
  const size_t hash = line.find_first_not_of(" \t");
  return hash != std::string_view::npos && StartsIncludeDirective(line.substr(hash));
}

// Whether tokens[i], a capability name, is used where it could be a value: not as a qualifier
// (`cutlass::arch::Sm90`, `UMMA::Major::K`), a type (`UMMA::Major major_a`), a namespace's name or
// an #include's path.
// Almost all of CUTLASS's capability names are those (356 of the 475 files that name one), and
// either reader needs a value to find a check.
bool MayBeValue(const std::vector<Token>& tokens, size_t i, std::string_view contents) {
  size_t next = i + 1;
  while (next < tokens.size() && tokens[next].kind == Token::Kind::kComment) ++next;
  if (next < tokens.size() && tokens[next].Spelling(contents) == "::") return false;
  size_t before = i;
  while (before > 0 && tokens[before - 1].kind == Token::Kind::kComment) --before;
  const std::string_view previous = before > 0 ? tokens[before - 1].Spelling(contents) : "";
  if (previous == "namespace") return false;
  // `UMMA::Major major_a`: a qualified name before a declared one is a type.
  if (previous == "::" && next < tokens.size() && tokens[next].kind == Token::Kind::kIdentifier) return false;
  return !OnIncludeLine(contents, tokens[i].begin);
}

}  // namespace

bool NamesCapabilityValue(const std::vector<Token>& tokens, std::string_view contents) {
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (tokens[i].kind == Token::Kind::kIdentifier && IsCapabilityName(tokens[i].Spelling(contents)) &&
        MayBeValue(tokens, i, contents)) {
      return true;
    }
  }
  return false;
}

Result<std::vector<Finding>> FindRuntimeGates(const std::string& file, std::string_view contents,
                                              const std::vector<arch::Arch>& arches) {
  return FindRuntimeGates(file, contents, arches, Tokenize(contents));
}

Result<std::vector<Finding>> FindRuntimeGates(const std::string& file, std::string_view contents,
                                              const std::vector<arch::Arch>& arches, const std::vector<Token>& tokens,
                                              RuntimeParse parse) {
  // Both readers see a capability only through an identifier of the file's code (the prelude
  // names none) that may be a value: a file whose capability names sit only in comments and
  // strings (CUTLASS's "K-major" prose, which the byte prefilter cannot tell from code), in
  // qualifiers, types and include paths holds no runtime check, and costs no pass.
  if (!NamesCapabilityValue(tokens, contents)) return std::vector<Finding>{};
  auto named = [&](const Token& t) {
    return t.kind == Token::Kind::kIdentifier && IsCapabilityName(t.Spelling(contents));
  };
  // No capability name the walk could read (runtime_relevance.h): nothing for clang to find.
  const runtime_detail::View view = runtime_detail::MakeView(contents, tokens);
  std::vector<size_t> readable;
  if (parse == RuntimeParse::kWhereReadable) {
    readable = ReadableCapabilityNames(view, tokens);
  } else {
    for (const Token& t : tokens) {
      if (named(t)) readable.push_back(t.begin);
    }
  }
  std::vector<Finding> found;
  if (!readable.empty()) {
    Result<std::vector<Finding>> parsed = ParsedFindings(file, contents, arches, tokens, readable);
    if (!parsed) return parsed.error();
    found = std::move(*parsed);
  }
  // The bodies clang dropped (unresolved types) and constants from the package's headers: read
  // from tokens; a line clang already reported keeps clang's finding.
  // The token pass also reads the if/else-if arms around each check (which arm the arch takes,
  // whether the check is reached): clang's finding on the same line takes those marks.
  std::map<int, size_t> by_line;
  for (size_t k = 0; k < found.size(); ++k) by_line.emplace(found[k].line, k);
  const ConstantLookup constants(file, ReadFileConstants(file, contents, tokens));
  const size_t from_clang = found.size();
  for (Finding& f : FindRuntimeGatesInTokens(file, contents, arches, tokens, view, constants)) {
    auto it = by_line.find(f.line);
    if (it == by_line.end()) {
      by_line.emplace(f.line, found.size());
      found.push_back(std::move(f));
    } else if (it->second < from_clang) {
      gate::Chain& chain = found[it->second].chain;  // clang's finding has neither
      if (f.chain.earlier_taken) chain.earlier_taken = f.chain.earlier_taken;
      if (f.chain.enclosing) chain.enclosing = f.chain.enclosing;
    }
  }
  std::erase_if(found, IsConfigSanityCheck);
  std::stable_sort(found.begin(), found.end(), [](const Finding& a, const Finding& b) {
    return std::tie(a.line, a.column) < std::tie(b.line, b.column);
  });
  return found;
}

}  // namespace archpatch::cuda
