// A Python tokenizer in the spirit of CPython's: names, numbers, strings (every prefix, triple
// quotes, f-strings with nested replacement fields and PEP 701 same-quote nesting), operators,
// NEWLINE/INDENT/DEDENT by the offside rule, implicit and backslash continuation. Comments and
// blank lines produce no tokens, so text inside a comment or string never reaches the recogniser.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace archpatch::python {

enum class TokenKind : uint8_t { kName, kNumber, kString, kOp, kNewline, kIndent, kDedent, kEnd };

// 20 bytes, not 40: a module's tokens are most of its scan's memory traffic. Offsets fit 32 bits:
// Tokenize refuses larger sources (none is read past kMaxSourceBytes).
struct Token {
  TokenKind kind = TokenKind::kEnd;
  bool fstring = false;  // a string token with an f (or t) prefix: its value is not a constant
  uint32_t begin = 0;    // byte offsets into the file as on disk (a BOM included)
  uint32_t end = 0;
  int line = 0;    // 1-based
  int column = 0;  // 1-based, in bytes from the start of the line (after a BOM on line 1)
};

// Limits that keep hostile input from exhausting the stack or the heap.
inline constexpr int kMaxBracketDepth = 200;  // CPython's MAXLEVEL
inline constexpr int kMaxFStringDepth = 32;   // nested f-strings / replacement fields
inline constexpr int kMaxIndentDepth = 100;   // CPython's MAXINDENT

// Tokenizes a whole file. Errors carry file:line:column and CPython-like wording
// ("unterminated string literal", "unindent does not match any outer indentation level").
Result<std::vector<Token>> Tokenize(const std::string& file, std::string_view source);

// The tokens and, for each bracket token, the index of its partner (npos for any other token).
// The tokenizer pairs brackets anyway to check them: a TokenStream made from this need not again.
struct Tokenized {
  std::vector<Token> tokens;
  std::vector<size_t> match;
};
Result<Tokenized> TokenizeMatched(const std::string& file, std::string_view source);

// The bytes of a token (of `source`, the text it was read from: in range, so not checked again).
inline std::string_view TokenText(std::string_view source, const Token& t) {
  return {source.data() + t.begin, t.end - t.begin};
}

// The characters between the quotes of a (non-f) string token, prefix and quotes removed. Escape
// sequences are kept as written: the recogniser only compares arch names, which hold none.
std::string_view StringBody(std::string_view token_text);

// Whether `text` is a string prefix Python accepts (r, b, u, f, t and their combinations, any case).
bool IsStringPrefix(std::string_view text);

}  // namespace archpatch::python
