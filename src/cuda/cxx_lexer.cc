// cuda::Tokenize: a raw C++ lexer, a port of what clang's Lexer does in raw mode with comments
// kept (clang/lib/Lex/Lexer.cpp, LexTokenInternal and the functions it calls), for the options our
// former libclang lexer used (-x c++ -std=c++20). Names follow clang's where the rule is clang's.
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <string>

#include "cuda/cxx_keywords.h"
#include "cuda/tokens.h"
#include "util/identifier.h"
#include "util/input_file.h"

namespace archpatch::cuda {
namespace {

bool IsHorizontalSpace(char c) { return c == ' ' || c == '\t' || c == '\f' || c == '\v'; }
bool IsVerticalSpace(char c) { return c == '\n' || c == '\r'; }
bool IsSpace(char c) { return IsHorizontalSpace(c) || IsVerticalSpace(c); }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
// A name's ASCII bytes are util/identifier.h's (letters, digits, `_`); `$` is the lexer's own.
bool IsIdentifierBody(char c) { return IsIdentifierChar(c); }
bool IsNumberBody(char c) { return IsIdentifierBody(c) || c == '.'; }
bool IsAscii(char c) { return static_cast<unsigned char>(c) < 0x80; }

int HexValue(char c) {
  if (IsDigit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// A raw string's delimiter: the basic character set but space, parentheses, backslash, controls;
// clang 19 also takes C++26's `$`, `@` and backquote.
bool IsRawDelimiterChar(char c) {
  return IsIdentifierBody(c) || (c != '\0' && std::strchr("{}[]#<>%:;.?*+-/^&|~!=,\"'$@`", c) != nullptr);
}

// clang's isUnicodeWhitespace: never part of an identifier (raw mode does not skip it either: at
// the start of a token it is an unknown token).
bool IsUnicodeSpace(uint32_t c) {
  return c == 0x85 || c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 ||
         c == 0x202F || c == 0x205F || c == 0x3000;
}

// Whether a non-ASCII code point starts an identifier. clang asks XID_Start; this answers no for
// the common blocks of marks, punctuation and symbols and yes elsewhere (tokens.h says why).
bool MayStartIdentifier(uint32_t c) {
  if (c < 0xC0) return c == 0xAA || c == 0xB5 || c == 0xBA;
  return !IsUnicodeSpace(c) && !(c >= 0xD800 && c <= 0xDFFF) && c != 0xD7 && c != 0xF7 && !(c >= 0x300 && c <= 0x36F) &&
         !(c >= 0x2000 && c <= 0x2BFF) && !(c >= 0x3000 && c <= 0x303F) && !(c >= 0xE000 && c <= 0xF8FF) &&
         !(c >= 0xFE30 && c <= 0xFE6F) && c != 0xFEFF && !(c >= 0xFF00 && c <= 0xFF20) &&
         !(c >= 0x1F000 && c <= 0x1FAFF);
}

// Suffixes the standard library reserves ([usrlit.suffix]): a string or number followed by one is
// a user-defined literal even without the leading underscore.
bool IsStandardSuffix(std::string_view s) {
  for (std::string_view std_suffix : {"h", "min", "s", "ms", "us", "ns", "il", "i", "if", "d", "y", "sv"}) {
    if (s == std_suffix) return true;
  }
  return false;
}

using Kind = Token::Kind;

// What the first byte of a token, read without a splice, settles at once (Next's fast paths);
// every other byte takes the full path.
enum class StartClass : uint8_t { kOther, kBlank, kName, kSingle };
struct StartClasses {
  std::array<StartClass, 256> of{};
  StartClasses() {
    for (const char c : {' ', '\t', '\f', '\v', '\n', '\r', '\0'})
      of[static_cast<unsigned char>(c)] = StartClass::kBlank;
    for (int c = 0; c < 128; ++c) {
      // Not u, U, L or R, which may open a literal.
      if (IsIdentifierStart(static_cast<char>(c)) && c != 'u' && c != 'U' && c != 'L' && c != 'R') {
        of[c] = StartClass::kName;
      }
    }
    for (const char c : {'(', ')', '[', ']', '{', '}', ';', ',', '?', '~'})
      of[static_cast<unsigned char>(c)] = StartClass::kSingle;
  }
};
const StartClasses kStarts;

class RawLexer {
 public:
  explicit RawLexer(std::string_view s) : s_(s), n_(s.size()), end_(s.size() + kWrapperEnd.size()) {}

  std::vector<Token> Run() { return RunFrom</*kStops=*/false>(0, 0).tokens; }

  // Run's tokens from `from` on, which must be where one of them starts (or blanks before it):
  // with kStops, through the first that begins at or past `stop` only.
  template <bool kStops>
  TokenPiece RunFrom(size_t from, size_t stop) {
    TokenPiece out;
    std::vector<Token>& tokens = out.tokens;
    const size_t until = kStops ? std::min(stop, n_) : n_;
    tokens.reserve((until - std::min(from, until)) / 4 + 16);  // CUTLASS averages a token per 4-5 bytes
    Token t;
    // The common tokens are lexed here, the others by Next: its call per token cost more than
    // most tokens. clang_tokenize lexed the file inside a wrapper; a token reaching past the
    // file's last byte (into the wrapper) was never the file's, and none can follow it.
    size_t p = from;
    while (true) {
      p = BlanksEnd(p);
      if (Quick(p, t)) {
        tokens.push_back(t);
        p = t.end;
      } else {
        pos_ = p;
        if (!Next(t) || t.end > n_) break;
        tokens.push_back(t);
        p = pos_;
      }
      if (kStops && t.begin >= stop) return out;
    }
    out.ended = true;
    return out;
  }

  // Run's tokens from `begin` (where one of them starts) to the end of its logical line.
  LogicalLineTokens LineFrom(size_t begin) {
    LogicalLineTokens out;
    pos_ = begin;
    Token t;
    while (true) {
      if (!Next(t) || t.end > n_) return out;  // the file's tokens end here
      if (!out.tokens.empty() && HasLineBreak(s_.substr(out.tokens.back().end, t.begin - out.tokens.back().end))) {
        out.next = t.begin;
        return out;
      }
      out.tokens.push_back(t);
    }
  }

 private:
  // The buffer clang saw: the bytes, the end of the `#if 0` wrapper, then the terminating NUL
  // (end_). What follows the file still decides where its last token ends: `#\` at the end is
  // `#` spliced to the wrapper's `#`, one token `##` that is not the file's.
  static constexpr std::string_view kWrapperEnd = "\n#endif\n";
  char At(size_t p) const {
    if (p < n_) return s_[p];
    return p - n_ < kWrapperEnd.size() ? kWrapperEnd[p - n_] : '\0';
  }
  bool AtEnd(size_t after) const { return after == end_ + 1; }  // the NUL at end_ was just read

  // getEscapedNewLineSize: a backslash followed by horizontal space and one newline is a splice.
  size_t EscapedNewlineSize(size_t p) const {
    for (size_t k = 0; IsSpace(At(p + k));) {
      const char c = At(p + k++);
      if (!IsVerticalSpace(c)) continue;
      const char next = At(p + k);
      if (IsVerticalSpace(next) && next != c) ++k;  // \r\n or \n\r
      return k;
    }
    return 0;
  }

  // getCharAndSize: the character at p once backslash-newlines are spliced out, and its bytes.
  // The lexer asks for every byte through here: the common case stays inline in its callers.
  char CharAt(size_t p, size_t& size) const {
    if (p < n_ && s_[p] != '\\') [[likely]] {  // nearly every byte: no splice to look for
      size = 1;
      return s_[p];
    }
    return SplicedCharAt(p, size);
  }
  // CharAt at a backslash or past the file's bytes.
  [[gnu::noinline]] char SplicedCharAt(size_t p, size_t& size) const {
    size_t q = p;
    while (At(q) == '\\') {
      const size_t splice = EscapedNewlineSize(q + 1);
      if (splice == 0) break;
      q += 1 + splice;
    }
    size = q - p + 1;
    return At(q);
  }
  char CharAt(size_t p) const {
    size_t size;
    return CharAt(p, size);
  }

  // \uXXXX or \UXXXXXXXX after a backslash (p: the u): the code point it spells and its end.
  bool ReadUcn(size_t p, uint32_t& code, size_t& end) const {
    const int digits = At(p) == 'u' ? 4 : At(p) == 'U' ? 8 : 0;
    if (digits == 0) return false;
    code = 0;
    for (int i = 1; i <= digits; ++i) {
      const int v = HexValue(At(p + i));
      if (v < 0) return false;
      code = code * 16 + static_cast<uint32_t>(v);
    }
    end = p + 1 + digits;
    return true;
  }
  // tryReadUCN's validity: a character past ASCII's controls and no surrogate ($ @ ` excepted).
  static bool IsValidUcn(uint32_t code) {
    if (code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return false;
    return code >= 0xA0 || code == 0x24 || code == 0x40 || code == 0x60;
  }

  // One UTF-8 sequence at p, decoded strictly (no overlong forms, surrogates, or values past
  // U+10FFFF); its length, or 0 when invalid.
  size_t DecodeUtf8(size_t p, uint32_t& code) const {
    const auto b = [&](size_t i) { return static_cast<unsigned char>(At(p + i)); };
    const unsigned char lead = b(0);
    const size_t len = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 0;
    if (len == 0 || lead > 0xF4 || p + len > n_) return 0;
    code = lead & (0x7F >> len);
    for (size_t i = 1; i < len; ++i) {
      if ((b(i) & 0xC0) != 0x80) return 0;
      code = code << 6 | (b(i) & 0x3F);
    }
    static constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
    if (code < kMin[len] || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return 0;
    return len;
  }

  // tryConsumeIdentifierUCN / tryConsumeIdentifierUTF8Char: the end of an identifier character
  // that is not ASCII (p: its first byte, `size` as CharAt gave it), or 0. Raw mode keeps any
  // character but a space, allowed or not.
  size_t UcnContinue(size_t p, size_t size) const {
    size_t end = 0;
    uint32_t code = 0;
    return ReadUcn(p + size, code, end) && IsValidUcn(code) && code >= 0x80 && !IsUnicodeSpace(code) ? end : 0;
  }
  size_t Utf8Continue(size_t p, size_t size) const {
    const size_t q = p + size - 1;
    uint32_t code = 0;
    const size_t len = DecodeUtf8(q, code);
    return len > 0 && !IsUnicodeSpace(code) ? q + len : 0;
  }
  size_t NonAsciiContinue(size_t p, size_t size, char c) const {
    if (c == '\\') return UcnContinue(p, size);
    return IsAscii(c) ? 0 : Utf8Continue(p, size);
  }

  bool Next(Token& t);

  // Past the blanks, newlines and NULs inside the file (a NUL is a blank) from `p`.
  size_t BlanksEnd(size_t p) const {
    while (p < n_ && kStarts.of[static_cast<unsigned char>(s_[p])] == StartClass::kBlank) ++p;
    return p;
  }
  // The token at `start` when its first byte settles it with no look past the token: a name of
  // letters, digits and `_` then a byte no name continues with (not a splice, a UCN, `$` or
  // UTF-8: IdentifierEnd's and IdentifierKind's answer without their looks), or a single
  // punctuator. False for every other token, which Next reads.
  bool Quick(size_t start, Token& t) const {
    if (start >= n_) return false;
    const StartClass quick = kStarts.of[static_cast<unsigned char>(s_[start])];
    if (quick == StartClass::kSingle) {
      t = Token{Kind::kPunctuation, static_cast<uint32_t>(start), static_cast<uint32_t>(start + 1)};
      return true;
    }
    if (quick != StartClass::kName) return false;
    size_t end = start + 1;
    while (end < n_ && IsIdentifierBody(s_[end])) ++end;
    if (end >= n_ || !IsAscii(s_[end]) || s_[end] == '\\' || s_[end] == '$') return false;
    const Kind kind = IsCxxKeyword(s_.substr(start, end - start)) ? Kind::kKeyword : Kind::kIdentifier;
    t = Token{kind, static_cast<uint32_t>(start), static_cast<uint32_t>(end)};
    return true;
  }

  bool Punctuator(char c, size_t& cur);
  size_t IdentifierEnd(size_t p) const;
  Kind IdentifierKind(size_t begin, size_t end) const;
  size_t NumberEnd(size_t begin, size_t p) const;
  size_t UdSuffixEnd(size_t p, bool string) const;
  bool QuotedEnd(size_t& p, char quote) const;
  bool RawStringEnd(size_t& p) const;
  size_t LineCommentEnd(size_t p) const;
  bool BlockCommentEnd(size_t& p) const;
  bool EscapedNewlineEndsComment(size_t p) const;

  std::string_view s_;
  size_t n_;
  size_t end_;
  size_t pos_ = 0;
};

size_t RawLexer::IdentifierEnd(size_t p) const {
  while (true) {
    while (p < n_ && IsIdentifierBody(s_[p])) ++p;
    size_t size;
    const char c = CharAt(p, size);
    if (IsIdentifierBody(c) || c == '$') {
      p += size;
      continue;
    }
    const size_t unicode = NonAsciiContinue(p, size, c);
    if (unicode == 0) return p;
    p = unicode;
  }
}

// What libclang's LookUpIdentifierInfo made of the identifier: a keyword by its spliced spelling.
Kind RawLexer::IdentifierKind(size_t begin, size_t end) const {
  std::string_view word = s_.substr(begin, end - begin);
  // One look at the bytes for the common case: no backslash (a spliced identifier) and ASCII only.
  const bool plain = std::all_of(word.begin(), word.end(), [](char c) { return IsAscii(c) && c != '\\'; });
  if (plain) return IsCxxKeyword(word) ? Kind::kKeyword : Kind::kIdentifier;
  std::string spliced;
  if (word.find('\\') != std::string_view::npos) {
    for (size_t p = begin, size; p < end; p += size) spliced += CharAt(p, size);
    word = spliced;
  }
  for (char c : word) {
    if (!IsAscii(c) || c == '\\') return Kind::kIdentifier;
  }
  return IsCxxKeyword(word) ? Kind::kKeyword : Kind::kIdentifier;
}

// LexNumericConstant: a pp-number, with exponent signs, hex-float signs and digit separators.
size_t RawLexer::NumberEnd(size_t begin, size_t p) const {
  // clang's isHexaLiteral: the second character is read after the first one's size, so that a
  // line splice before the number or between its `0` and `x` still makes a hex float.
  size_t first_size;
  const bool zero = CharAt(begin, first_size) == '0';
  const char second = zero ? CharAt(begin + first_size) : 0;
  const bool hex = second == 'x' || second == 'X';
  while (true) {
    size_t size;
    char c = CharAt(p, size);
    char prev = 0;
    while (IsNumberBody(c)) {
      p += size;
      prev = c;
      c = CharAt(p, size);
    }
    const bool sign = c == '-' || c == '+';
    if (sign && (prev == 'e' || prev == 'E' || (hex && (prev == 'p' || prev == 'P')))) {
      p += size;
      continue;
    }
    if (c == '\'') {
      size_t next_size;
      if (IsIdentifierBody(CharAt(p + size, next_size))) {
        p += size + next_size;
        continue;
      }
    }
    const size_t unicode = NonAsciiContinue(p, size, c);
    if (unicode == 0) return p;
    p = unicode;
  }
}

// LexUDSuffix: an identifier right after a literal is its suffix when it starts with `_`, with a
// non-ASCII character, or (strings) is one the standard reserves; otherwise a separate token.
size_t RawLexer::UdSuffixEnd(size_t p, bool string) const {
  size_t size;
  const char c = CharAt(p, size);
  if (!IsIdentifierStart(c)) {
    const size_t unicode = NonAsciiContinue(p, size, c);
    if (unicode == 0) return p;
    p = unicode;
  } else {
    bool suffix = c == '_';
    if (!suffix && string) {
      std::string word(1, c);
      for (size_t q = p + size, next_size;; q += next_size) {
        const char next = CharAt(q, next_size);
        if (!IsIdentifierBody(next)) {
          suffix = IsStandardSuffix(word);
          break;
        }
        if (word.size() == 3) break;
        word += next;
      }
    }
    if (!suffix) return p;
    p += size;
  }
  while (true) {
    const char next = CharAt(p, size);
    if (IsIdentifierBody(next)) {
      p += size;
      continue;
    }
    const size_t unicode = NonAsciiContinue(p, size, next);
    if (unicode == 0) return p;
    p = unicode;
  }
}

// LexStringLiteral / LexCharConstant from just after the opening quote: false (clang's `unknown`)
// when a newline or the end comes first, p then at the newline.
bool RawLexer::QuotedEnd(size_t& p, char quote) const {
  size_t size;
  char c = CharAt(p, size);
  p += size;
  if (quote == '\'' && c == '\'') return false;  // '' is no character
  while (c != quote) {
    if (c == '\\') {
      c = CharAt(p, size);
      p += size;
    }
    if (IsVerticalSpace(c) || (c == '\0' && AtEnd(p))) {
      --p;
      return false;
    }
    c = CharAt(p, size);
    p += size;
  }
  p = UdSuffixEnd(p, quote == '"');
  return true;
}

// LexRawStringLiteral from just after the quote: R"delim( ... )delim", no splicing inside.
bool RawLexer::RawStringEnd(size_t& p) const {
  size_t len = 0;
  while (len != 16 && IsRawDelimiterChar(At(p + len))) ++len;
  if (At(p + len) != '(') {  // no delimiter: up to the next quote, as one unknown token
    while (true) {
      const char c = At(p++);
      if (c == '"') return false;
      if (c == '\0' && AtEnd(p)) return --p, false;
    }
  }
  const std::string delimiter = std::string(s_.substr(std::min(p, n_), len));
  for (size_t q = p + len + 1; q < n_; ++q) {
    q = s_.find(')', q);
    if (q == std::string_view::npos) break;
    if (s_.compare(q + 1, len, delimiter) == 0 && At(q + 1 + len) == '"') {
      p = UdSuffixEnd(q + len + 2, /*string=*/true);
      return true;
    }
  }
  p = end_;  // unterminated: runs to the end, past the file
  return false;
}

// SkipLineComment: up to the newline that ends it; a backslash-newline continues it.
size_t RawLexer::LineCommentEnd(size_t p) const {
  while (true) {
    size_t nl = p;
    while (nl < n_ && !IsVerticalSpace(s_[nl])) ++nl;
    size_t escape = nl;
    while (escape > 0 && IsHorizontalSpace(At(escape - 1))) --escape;
    if (escape == 0 || At(escape - 1) != '\\') return nl;
    size_t size;
    const char c = CharAt(escape - 1, size);  // the character after the splice(s)
    const size_t after = escape - 1 + size;
    if (IsVerticalSpace(c) || AtEnd(after)) return after - 1;
    p = after;
  }
}

// SkipBlockComment from just after `/*`: false when the comment never ends.
bool RawLexer::BlockCommentEnd(size_t& p) const {
  size_t size;
  char c = CharAt(p, size);
  p += size;
  if (c == '\0' && AtEnd(p)) return false;
  if (c == '/') c = At(p++);  // `/*/` does not end at its own slash
  while (true) {
    if (c != '/') {
      const size_t slash = p < n_ ? s_.find('/', p) : std::string_view::npos;
      if (slash == std::string_view::npos) return false;
      p = slash + 1;
    }
    const char before = At(p - 2);
    if (before == '*' || (IsVerticalSpace(before) && EscapedNewlineEndsComment(p - 2))) return true;
    c = At(p++);
  }
}

// isEndOfBlockCommentWithEscapedNewLine: `*`, backslash-newline(s), `/` also ends a comment.
bool RawLexer::EscapedNewlineEndsComment(size_t p) const {
  while (true) {
    if (p == 0) return false;
    --p;
    if (IsVerticalSpace(At(p))) {
      if (At(p) == At(p + 1) || p == 0) return false;
      --p;
    }
    while (IsHorizontalSpace(At(p)) || At(p) == '\0') {
      if (p == 0) return false;
      --p;
    }
    if (At(p) != '\\' || p == 0) return false;
    --p;
    if (At(p) == '*') return true;
    if (!IsVerticalSpace(At(p))) return false;
  }
}

// The punctuators, longest match first; `cur` is just past c and moves past the rest.
bool RawLexer::Punctuator(char c, size_t& cur) {
  size_t size, size2, size3;
  const char next = CharAt(cur, size);
  const auto take = [&](size_t bytes) { cur += bytes; };
  switch (c) {
    case '?':
    case '[':
    case ']':
    case '(':
    case ')':
    case '{':
    case '}':
    case '~':
    case ';':
    case ',': return true;
    case '&':
    case '+':
    case '|':
      if (next == c || next == '=') take(size);
      return true;
    case '*':
    case '!':
    case '^':
    case '=':
      if (next == '=') take(size);
      return true;
    case '-':
      if (next == '>' && CharAt(cur + size, size2) == '*') return take(size + size2), true;
      if (next == '-' || next == '>' || next == '=') take(size);
      return true;
    case '/':
      if (next == '=') take(size);
      return true;
    case '%':
      if (next == '=' || next == '>') return take(size), true;
      if (next != ':') return true;
      take(size);
      if (CharAt(cur, size) == '%' && CharAt(cur + size, size2) == ':') take(size + size2);  // %:%: is ##
      return true;
    case '<':
      if (next == '<') return take(size + (CharAt(cur + size, size2) == '=' ? size2 : 0)), true;
      if (next == '=') return take(size + (CharAt(cur + size, size2) == '>' ? size2 : 0)), true;
      if (next == ':') {
        // [lex.pptoken]: `<::` not followed by `:` or `>` is `<` then `::`, not the digraph `<:`.
        if (CharAt(cur + size, size2) == ':') {
          const char after = CharAt(cur + size + size2, size3);
          if (after != ':' && after != '>') return true;
        }
        return take(size), true;
      }
      if (next == '%') take(size);
      return true;
    case '>':
      if (next == '=') return take(size), true;
      if (next == '>') take(size + (CharAt(cur + size, size2) == '=' ? size2 : 0));
      return true;
    case ':':
      if (next == '>' || next == ':') take(size);
      return true;
    case '#':
      if (next == '#') take(size);
      return true;
    case '.':
      if (next == '*') return take(size), true;
      if (next == '.' && CharAt(cur + size, size2) == '.') take(size + size2);
      return true;
    default: return false;
  }
}

// LexTokenInternal: the next token from pos_, false at the end of the buffer.
bool RawLexer::Next(Token& t) {
  while (true) {
    const size_t start = BlanksEnd(pos_);
    const auto token = [&](Kind k, size_t end) {
      t = Token{k, static_cast<uint32_t>(start), static_cast<uint32_t>(end)};
      pos_ = end;
      return true;
    };
    if (Quick(start, t)) return pos_ = t.end, true;
    if (start < n_ && kStarts.of[static_cast<unsigned char>(s_[start])] == StartClass::kName) {
      const size_t end = IdentifierEnd(start + 1);  // a name Quick could not settle
      return token(IdentifierKind(start, end), end);
    }
    size_t size;
    const char c = CharAt(start, size);
    size_t cur = start + size;
    Kind kind = Kind::kPunctuation;
    if (c == '\0' && AtEnd(cur)) return false;
    if (c == '\0' || IsSpace(c)) {  // a NUL inside the file is whitespace too
      pos_ = cur;
      continue;
    }
    if (IsDigit(c)) return token(Kind::kLiteral, NumberEnd(start, cur));
    if (c == '.' && IsDigit(CharAt(cur, size))) return token(Kind::kLiteral, NumberEnd(start, cur + size));
    if (c == '\'' || c == '"') {
      kind = QuotedEnd(cur, c) ? Kind::kLiteral : Kind::kPunctuation;
      return token(kind, cur);
    }
    if (c == 'u' || c == 'U' || c == 'L' || c == 'R') {
      // Encoding prefixes: u8 u U L, each optionally followed by R for a raw string.
      size_t p = cur;
      size_t size2;
      if (c == 'u' && CharAt(p, size2) == '8') p += size2;
      const char q = CharAt(p, size2);
      if (c != 'R' && (q == '"' || q == '\'')) {
        p += size2;
        kind = QuotedEnd(p, q) ? Kind::kLiteral : Kind::kPunctuation;
        return token(kind, p);
      }
      const bool raw = c == 'R' ? q == '"' : q == 'R' && CharAt(p + size2, size) == '"';
      if (raw) {
        p += c == 'R' ? size2 : size2 + size;
        kind = RawStringEnd(p) ? Kind::kLiteral : Kind::kPunctuation;
        return token(kind, p);
      }
    }
    if (IsIdentifierStart(c) || c == '$') {
      const size_t end = IdentifierEnd(cur);
      return token(IdentifierKind(start, end), end);
    }
    if (c == '/') {
      size_t size2;
      const char next = CharAt(cur, size2);
      if (next == '/') return token(Kind::kComment, LineCommentEnd(cur + size2));
      size_t end = cur + size2;
      if (next == '*') return BlockCommentEnd(end) && token(Kind::kComment, end);  // unterminated: the end
    }
    if (Punctuator(c, cur)) return token(Kind::kPunctuation, cur);
    if (c == '\\') {
      // A UCN that cannot start a name is one unknown token, valid or not; a lone backslash too.
      size_t ucn_end = 0;
      uint32_t code = 0;
      if (!ReadUcn(cur, code, ucn_end)) return token(Kind::kPunctuation, cur);
      const bool name = IsValidUcn(code) && code >= 0x80 && MayStartIdentifier(code);
      return name ? token(Kind::kIdentifier, IdentifierEnd(ucn_end)) : token(Kind::kPunctuation, ucn_end);
    }
    if (IsAscii(c)) return token(Kind::kPunctuation, cur);  // `@`, a backquote, a control character
    const size_t q = cur - 1;
    uint32_t code = 0;
    const size_t len = DecodeUtf8(q, code);
    if (len == 0) return token(Kind::kPunctuation, q + 1);  // invalid UTF-8: one unknown byte
    if (MayStartIdentifier(code)) return token(Kind::kIdentifier, IdentifierEnd(q + len));
    return token(Kind::kPunctuation, q + len);
  }
}

}  // namespace

static_assert(kMaxSourceBytes <= kMaxTokenizedBytes, "a source audit reads must fit Token's offsets");

std::vector<Token> Tokenize(std::string_view contents) {
  // Token offsets are 32 bits (tokens.h); every caller's source is bounded far below that.
  if (contents.size() > kMaxTokenizedBytes) return {};
  return RawLexer(contents).Run();
}

TokenPiece TokenizeFrom(std::string_view contents, size_t from, size_t stop) {
  if (contents.size() > kMaxTokenizedBytes || from > contents.size()) return TokenPiece{{}, /*ended=*/true};
  return RawLexer(contents).RunFrom</*kStops=*/true>(from, stop);
}

LogicalLineTokens TokenizeLogicalLine(std::string_view contents, size_t begin) {
  if (contents.size() > kMaxTokenizedBytes) return {};
  return RawLexer(contents).LineFrom(begin);
}

}  // namespace archpatch::cuda
