// The whole file's tokens as clang's raw lexer sees them (comments included as tokens), with byte
// offsets; and line/column arithmetic over the file's bytes. One pass over the bytes, no state
// kept between files: the lexer of our own that replaced libclang's (clang_tokenize over a
// translation unit re-parsed per file, half the audit's time), token for token the same.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace archpatch::cuda {

// 12 bytes: a file's tokens take three times its size, not six (every pass over them reads
// less memory); offsets fit 32 bits because no source read is larger than kMaxSourceBytes.
struct Token {
  enum class Kind : uint8_t { kPunctuation, kKeyword, kIdentifier, kLiteral, kComment };
  Kind kind = Kind::kPunctuation;
  uint32_t begin = 0;  // byte offsets into the file, half-open
  uint32_t end = 0;
  std::string_view Spelling(std::string_view contents) const { return contents.substr(begin, end - begin); }
};

// Tokens of `contents` in order, as clang_tokenize gave them for the file under
// `-x c++ -std=c++20` in raw mode (no preprocessing: `#`, `if` and `0` are three tokens):
// backslash-newlines spliced, digraphs, raw strings, user-defined literal suffixes, digit
// separators; a malformed literal (an unterminated string, `''`) is one punctuation token, as
// clang's `unknown` token was; an unterminated block comment or raw string ends the tokens.
// One difference is deliberate: a non-ASCII character that starts a token is read as starting an
// identifier unless it is a space, punctuation or symbol of the common Unicode blocks (clang
// consults the full XID_Start table; the two differ only on rare symbols outside comments and
// strings). Linear in the size of `contents`.
std::vector<Token> Tokenize(std::string_view contents);
// Larger contents give no tokens (offsets are 32 bits); sources are read up to kMaxSourceBytes.
inline constexpr size_t kMaxTokenizedBytes = UINT32_MAX - 1;

// Tokens lexed from a place in the file (cuda/token_pieces.h joins such pieces): those that
// Tokenize(contents) gives from `from` on when one of them starts there (or blanks before one),
// through the first that begins at or past `stop`. `ended`: the file's tokens end before that one
// (there is none past `stop`).
struct TokenPiece {
  std::vector<Token> tokens;
  bool ended = false;
};
TokenPiece TokenizeFrom(std::string_view contents, size_t from, size_t stop);

// Whether the gap between two tokens ends a logical line: it holds a newline that no backslash
// escapes (a continuation, `\` then the newline, joins the lines).
bool HasLineBreak(std::string_view gap);

// The tokens Tokenize(contents) gives from `begin` on, which must be where one of them starts,
// through the end of that logical line (the last before a gap that HasLineBreak): a directive's,
// lexed without the rest of the file. `next`: where the token after them starts, npos when the
// file's tokens end with them.
struct LogicalLineTokens {
  std::vector<Token> tokens;
  size_t next = std::string_view::npos;
};
LogicalLineTokens TokenizeLogicalLine(std::string_view contents, size_t begin);

// Whether `contents` may hold a raw string literal: a `"` right after an `R` (R"(, u8R"x(, ...).
// Readers that skip literals by their quotes read such a file whole: a raw string holds any
// bytes, quotes and newlines included.
bool MayHoldRawString(std::string_view contents);

// Offsets to 1-based line and byte column: one index per file, built in one pass over its bytes
// (memchr), each look-up a binary search, so no pass counts lines from the start of the file.
// Offsets are 32 bits, as Token's.
class LineIndex {
 public:
  LineIndex() = default;  // an empty file: every offset is on line 1
  explicit LineIndex(std::string_view contents);
  int Line(size_t offset) const;
  int Column(size_t offset) const;
  size_t LineStart(int line) const;
  int line_count() const { return static_cast<int>(starts_.size()); }

 private:
  std::vector<uint32_t> starts_{0};
};

}  // namespace archpatch::cuda
