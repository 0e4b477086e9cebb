// The whole file's tokens as libclang's lexer sees them (comments included as tokens), with byte
// offsets; and line/column arithmetic over the file's bytes. One Lexer per thread: it keeps one
// CXIndex and one translation unit that it re-parses for every file, with the file's bytes
// wrapped in `#if 0 ... #endif` so that clang lexes but neither preprocesses nor parses them.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace archpatch::cuda {

struct Token {
  enum class Kind { kPunctuation, kKeyword, kIdentifier, kLiteral, kComment };
  Kind kind = Kind::kPunctuation;
  size_t begin = 0;  // byte offsets into the file, half-open
  size_t end = 0;
  std::string_view Spelling(std::string_view contents) const { return contents.substr(begin, end - begin); }
};

class Lexer {
 public:
  Lexer();
  ~Lexer();
  Lexer(const Lexer&) = delete;
  Lexer& operator=(const Lexer&) = delete;

  // Tokens of `contents` in order. `file` only names the file in errors.
  Result<std::vector<Token>> Tokenize(const std::string& file, std::string_view contents);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The Lexer of the calling thread (created on first use).
Lexer& ThreadLexer();

// Offsets to 1-based line and byte column: one index per file, built in one pass over its bytes
// (memchr), each look-up a binary search, so no pass counts lines from the start of the file.
class LineIndex {
 public:
  LineIndex() = default;  // an empty file: every offset is on line 1
  explicit LineIndex(std::string_view contents);
  int Line(size_t offset) const;
  int Column(size_t offset) const;
  size_t LineStart(int line) const;
  int line_count() const { return static_cast<int>(starts_.size()); }

 private:
  std::vector<size_t> starts_{0};
};

}  // namespace archpatch::cuda
