#include "cuda/tokens.h"

#include <algorithm>
#include <atomic>

#include <clang-c/Index.h>
#include <fmt/format.h>

namespace archpatch::cuda {
namespace {

// Wrapping the bytes in `#if 0` makes clang's preprocessor skip them (no macro expansion, no
// parse); clang_tokenize still lexes the range exactly, since it re-lexes the buffer raw.
constexpr std::string_view kPrefix = "#if 0\n";
constexpr std::string_view kSuffix = "\n#endif\n";

// No predefined macros, no system headers, C++20 for raw strings and digit separators.
const char* const kArgs[] = {"-x", "c++", "-std=c++20", "-nostdinc", "-nostdinc++", "-undef"};

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

unsigned FileOffset(CXSourceLocation location) {
  unsigned offset = 0;
  clang_getFileLocation(location, nullptr, nullptr, nullptr, &offset);
  return offset;
}

// Token offsets through the API: three libclang calls per token.
std::vector<Token> ConvertSlow(CXTranslationUnit unit, CXToken* raw, unsigned count, size_t size) {
  std::vector<Token> tokens;
  tokens.reserve(count);
  for (unsigned i = 0; i < count; ++i) {
    CXSourceRange extent = clang_getTokenExtent(unit, raw[i]);
    size_t b = FileOffset(clang_getRangeStart(extent)), e = FileOffset(clang_getRangeEnd(extent));
    if (b < kPrefix.size() || e > kPrefix.size() + size) continue;
    tokens.push_back({KindOf(clang_getTokenKind(raw[i])), b - kPrefix.size(), e - kPrefix.size()});
  }
  return tokens;
}

// The same from libclang's token encoding (int_data[1]: the raw source location, int_data[2]: the
// length), relative to the raw location of the range's start. Half the audit's time otherwise
// goes to per-token API calls. Checked against the API on the first and last token; any mismatch
// falls back to ConvertSlow.
std::vector<Token> Convert(CXTranslationUnit unit, CXToken* raw, unsigned count, CXSourceLocation start, size_t size) {
  if (count == 0) return {};
  const unsigned base = start.int_data;
  auto fast = [&](unsigned i) -> Token {
    size_t b = raw[i].int_data[1] - base;
    return {KindOf(clang_getTokenKind(raw[i])), b, b + raw[i].int_data[2]};
  };
  for (unsigned i : {0u, count - 1}) {
    CXSourceRange extent = clang_getTokenExtent(unit, raw[i]);
    Token t = fast(i);
    if (t.begin + kPrefix.size() != FileOffset(clang_getRangeStart(extent)) ||
        t.end + kPrefix.size() != FileOffset(clang_getRangeEnd(extent))) {
      return ConvertSlow(unit, raw, count, size);
    }
  }
  std::vector<Token> tokens;
  tokens.reserve(count);
  for (unsigned i = 0; i < count; ++i) {
    Token t = fast(i);
    if (t.end <= size) tokens.push_back(t);
  }
  return tokens;
}

}  // namespace

struct Lexer::Impl {
  CXIndex index = nullptr;
  CXTranslationUnit unit = nullptr;
  std::string path;    // a virtual main file, one per lexer
  std::string buffer;  // kPrefix + contents + kSuffix

  ~Impl() {
    if (unit) clang_disposeTranslationUnit(unit);
    if (index) clang_disposeIndex(index);
  }

  // Parses the first file, re-parses the same translation unit afterwards (no driver run).
  bool Load() {
    CXUnsavedFile unsaved{path.c_str(), buffer.data(), static_cast<unsigned long>(buffer.size())};
    if (unit) {
      if (clang_reparseTranslationUnit(unit, 1, &unsaved, clang_defaultReparseOptions(unit)) == 0) {
        return true;
      }
      clang_disposeTranslationUnit(unit);  // a failed re-parse leaves the unit unusable
      unit = nullptr;
      return false;
    }
    const unsigned flags = CXTranslationUnit_SingleFileParse | CXTranslationUnit_Incomplete;
    CXErrorCode code =
        clang_parseTranslationUnit2(index, path.c_str(), kArgs, std::size(kArgs), &unsaved, 1, flags, &unit);
    if (code != CXError_Success) unit = nullptr;
    return unit != nullptr;
  }
};

Lexer::Lexer() : impl_(std::make_unique<Impl>()) {
  static std::atomic<int> counter{0};
  impl_->index = clang_createIndex(/*excludeDeclarationsFromPCH=*/0, /*displayDiagnostics=*/0);
  impl_->path = fmt::format("/archpatch-virtual/lexer{}.cc", counter++);
}

Lexer::~Lexer() = default;

Result<std::vector<Token>> Lexer::Tokenize(const std::string& file, std::string_view contents) {
  Impl& d = *impl_;
  d.buffer.assign(kPrefix);
  d.buffer.append(contents);
  d.buffer.append(kSuffix);
  if (!d.Load()) {
    return Error{"libclang could not read the file", Location{file, 0, 0}};
  }
  CXFile main = clang_getFile(d.unit, d.path.c_str());
  CXSourceLocation begin = clang_getLocationForOffset(d.unit, main, kPrefix.size());
  CXSourceLocation end = clang_getLocationForOffset(d.unit, main, kPrefix.size() + contents.size());
  CXToken* raw = nullptr;
  unsigned count = 0;
  clang_tokenize(d.unit, clang_getRange(begin, end), &raw, &count);
  std::vector<Token> tokens = Convert(d.unit, raw, count, begin, contents.size());
  clang_disposeTokens(d.unit, raw, count);
  // A unit (and buffer) the size of a big file is not kept for the next, small one: a worker
  // would hold it while idle. The next file pays one full parse instead of a re-parse.
  constexpr size_t kKeepBytes = 1 << 20;
  if (contents.size() > kKeepBytes) {
    clang_disposeTranslationUnit(d.unit);
    d.unit = nullptr;
    std::string().swap(d.buffer);
  }
  return tokens;
}

Lexer& ThreadLexer() {
  thread_local Lexer lexer;
  return lexer;
}

LineIndex::LineIndex(std::string_view contents) {
  for (size_t i = contents.find('\n'); i != std::string_view::npos; i = contents.find('\n', i + 1)) {
    starts_.push_back(i + 1);
  }
}

int LineIndex::Line(size_t offset) const {
  auto it = std::upper_bound(starts_.begin(), starts_.end(), offset);
  return static_cast<int>(it - starts_.begin());
}

int LineIndex::Column(size_t offset) const { return static_cast<int>(offset - starts_[Line(offset) - 1]) + 1; }

size_t LineIndex::LineStart(int line) const {
  if (line < 1) return 0;
  if (line > line_count()) return starts_.back();
  return starts_[line - 1];
}

}  // namespace archpatch::cuda
