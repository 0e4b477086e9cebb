// The tokens libclang gives for a file, exactly as archpatch's former lexer obtained them:
// the bytes wrapped in `#if 0 ... #endif` (lexed, never preprocessed) in a translation unit
// re-parsed per file, then clang_tokenize over the file's range. Test support only
// (cxx_lexer_oracle_test.cc, fuzz/lexer_fuzzer.cc): cuda::Tokenize must agree with it token for
// token. Header-only so that the library does not carry it.
#pragma once

#include <iterator>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <clang-c/Index.h>

#include "cuda/tokens.h"

namespace archpatch::cuda {

class ClangLexerOracle {
 public:
  ClangLexerOracle() : index_(clang_createIndex(0, 0)) {}
  ~ClangLexerOracle() {
    if (unit_) clang_disposeTranslationUnit(unit_);
    clang_disposeIndex(index_);
  }
  ClangLexerOracle(const ClangLexerOracle&) = delete;
  ClangLexerOracle& operator=(const ClangLexerOracle&) = delete;

  std::vector<Token> Tokenize(std::string_view contents) {
    buffer_.assign(kPrefix).append(contents).append(kSuffix);
    Load();
    CXFile main = clang_getFile(unit_, kPath);
    CXSourceLocation begin = clang_getLocationForOffset(unit_, main, kPrefix.size());
    CXSourceLocation end = clang_getLocationForOffset(unit_, main, kPrefix.size() + contents.size());
    CXToken* raw = nullptr;
    unsigned count = 0;
    clang_tokenize(unit_, clang_getRange(begin, end), &raw, &count);
    std::vector<Token> tokens;
    for (unsigned i = 0; i < count; ++i) {
      CXSourceRange extent = clang_getTokenExtent(unit_, raw[i]);
      unsigned b = 0, e = 0;
      clang_getFileLocation(clang_getRangeStart(extent), nullptr, nullptr, nullptr, &b);
      clang_getFileLocation(clang_getRangeEnd(extent), nullptr, nullptr, nullptr, &e);
      if (b < kPrefix.size() || e > kPrefix.size() + contents.size()) continue;
      tokens.push_back({KindOf(clang_getTokenKind(raw[i])), static_cast<uint32_t>(b - kPrefix.size()),
                        static_cast<uint32_t>(e - kPrefix.size())});
    }
    clang_disposeTokens(unit_, raw, count);
    return tokens;
  }

 private:
  static constexpr std::string_view kPrefix = "#if 0\n";
  static constexpr std::string_view kSuffix = "\n#endif\n";
  static constexpr const char* kPath = "/archpatch-virtual/oracle.cc";

  static Token::Kind KindOf(CXTokenKind kind) {
    switch (kind) {
      case CXToken_Keyword: return Token::Kind::kKeyword;
      case CXToken_Identifier: return Token::Kind::kIdentifier;
      case CXToken_Literal: return Token::Kind::kLiteral;
      case CXToken_Comment: return Token::Kind::kComment;
      case CXToken_Punctuation: break;
    }
    return Token::Kind::kPunctuation;
  }

  void Load() {
    CXUnsavedFile unsaved{kPath, buffer_.data(), static_cast<unsigned long>(buffer_.size())};
    if (unit_ && clang_reparseTranslationUnit(unit_, 1, &unsaved, clang_defaultReparseOptions(unit_)) == 0) return;
    if (unit_) clang_disposeTranslationUnit(unit_);
    const char* const args[] = {"-x", "c++", "-std=c++20", "-nostdinc", "-nostdinc++", "-undef"};
    const unsigned flags = CXTranslationUnit_SingleFileParse | CXTranslationUnit_Incomplete;
    if (clang_parseTranslationUnit2(index_, kPath, args, std::size(args), &unsaved, 1, flags, &unit_) !=
        CXError_Success) {
      unit_ = nullptr;
      throw std::runtime_error("libclang could not parse the oracle's buffer");
    }
  }

  CXIndex index_;
  CXTranslationUnit unit_ = nullptr;
  std::string buffer_;
};

}  // namespace archpatch::cuda
