#include "cuda/condition_lexer.h"

#include <array>
#include <cctype>

#include <fmt/format.h>

namespace archpatch::cuda {
namespace {

bool IsIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }
bool IsIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }
bool IsDigit(char c) { return std::isdigit(static_cast<unsigned char>(c)); }

// The text with backslash-newlines removed, and for each kept byte its offset in the original.
// Most conditions have no continuation: their text is the original and `origin` stays empty
// (the identity), which saves two per-byte copies on every #if of a file.
struct Spliced {
  std::string text;
  std::vector<size_t> origin;  // empty, or origin.size() == text.size() + 1 (the last is the end)

  size_t Origin(size_t offset) const { return origin.empty() ? offset : origin[offset]; }
};

Spliced Splice(std::string_view raw) {
  Spliced s;
  if (raw.find('\\') == std::string_view::npos) {
    s.text = std::string(raw);
    return s;
  }
  s.text.reserve(raw.size());
  s.origin.reserve(raw.size() + 1);
  for (size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] == '\\') {
      size_t j = i + 1;
      if (j < raw.size() && raw[j] == '\r') ++j;
      if (j < raw.size() && raw[j] == '\n') {
        i = j;
        continue;
      }
    }
    s.text += raw[i];
    s.origin.push_back(i);
  }
  s.origin.push_back(raw.size());
  return s;
}

// Punctuators the #if grammar can meet, longest first.
constexpr std::string_view kPuncts[] = {
    "<<=", ">>=", "...", "<=>", "&&", "||", "<<", ">>", "<=", ">=", "==", "!=", "->", "++", "--", "+=", "-=",
    "*=",  "/=",  "%=",  "&=",  "|=", "^=", "##", "::", "(",  ")",  "!",  "~",  "-",  "+",  "*",  "/",  "%",
    "<",   ">",   "&",   "^",   "|",  "?",  ":",  ",",  "[",  "]",  "{",  "}",  ".",  ";",  "#",  "=",
};

// First characters of kPuncts: exactly the one-character punctuators.
constexpr std::array<bool, 256> kPunctStart = [] {
  std::array<bool, 256> start{};
  for (std::string_view p : kPuncts) start[static_cast<unsigned char>(p[0])] = true;
  return start;
}();

class Lexer {
 public:
  explicit Lexer(std::string_view raw) : raw_(raw), s_(Splice(raw)) {}

  Result<std::vector<CondToken>> Run() {
    std::vector<CondToken> tokens;
    const std::string& t = s_.text;
    size_t i = 0;
    while (i < t.size()) {
      const char c = t[i];
      if (std::isspace(static_cast<unsigned char>(c))) {
        ++i;
      } else if (c == '/' && i + 1 < t.size() && t[i + 1] == '/') {
        while (i < t.size() && t[i] != '\n') ++i;
      } else if (c == '/' && i + 1 < t.size() && t[i + 1] == '*') {
        const size_t close = t.find("*/", i + 2);
        if (close == std::string::npos) return Fail(i, "unterminated comment");
        i = close + 2;
      } else {
        const CondToken::Kind kind = KindAt(i);
        Result<size_t> end = TokenEnd(i, kind);
        if (!end) return end.error();
        tokens.push_back(Make(kind, i, *end));
        i = *end;
      }
    }
    return tokens;
  }

 private:
  CondToken::Kind KindAt(size_t i) const {
    const std::string& t = s_.text;
    const char c = t[i];
    if (IsDigit(c) || (c == '.' && i + 1 < t.size() && IsDigit(t[i + 1]))) return CondToken::Kind::kNumber;
    const size_t q = LiteralQuote(i);
    if (q != std::string::npos) return t[q] == '\'' ? CondToken::Kind::kChar : CondToken::Kind::kString;
    if (IsIdentStart(c)) return CondToken::Kind::kIdentifier;
    // Every punctuator's first character is a one-character punctuator itself.
    return kPunctStart[static_cast<unsigned char>(c)] ? CondToken::Kind::kPunct : CondToken::Kind::kOther;
  }

  // Where the quote of a char/string literal starting at i is (after an L/u/U/u8 prefix), or npos.
  size_t LiteralQuote(size_t i) const {
    const std::string& t = s_.text;
    const char c = t[i];
    if (c != '\'' && c != '"' && c != 'L' && c != 'u' && c != 'U') return std::string::npos;  // no prefix starts so
    for (std::string_view prefix : {"", "L", "u", "U", "u8"}) {
      const size_t q = i + prefix.size();
      if (t.compare(i, prefix.size(), prefix) == 0 && q < t.size() && (t[q] == '\'' || t[q] == '"')) return q;
    }
    return std::string::npos;
  }

  Result<size_t> TokenEnd(size_t i, CondToken::Kind kind) const {
    const std::string& t = s_.text;
    switch (kind) {
      case CondToken::Kind::kNumber: return NumberEnd(i);
      case CondToken::Kind::kChar:
      case CondToken::Kind::kString: return LiteralEnd(i);
      case CondToken::Kind::kIdentifier: {
        size_t j = i;
        while (j < t.size() && IsIdentChar(t[j])) ++j;
        return j;
      }
      case CondToken::Kind::kPunct:
        for (std::string_view p : kPuncts) {
          if (t.compare(i, p.size(), p) == 0) return i + p.size();
        }
        break;
      case CondToken::Kind::kOther: break;
    }
    // One whole UTF-8 sequence, so a caret never splits a character.
    size_t j = i + 1;
    while (j < t.size() && (static_cast<unsigned char>(t[j]) & 0xC0) == 0x80) ++j;
    return j;
  }

  // A pp-number: digits, letters, '.', exponent signs, and C++14 digit separators.
  size_t NumberEnd(size_t i) const {
    const std::string& t = s_.text;
    size_t j = i + 1;
    while (j < t.size()) {
      const char c = t[j];
      const char prev = std::tolower(static_cast<unsigned char>(t[j - 1]));
      if (IsIdentChar(c) || c == '.') {
        ++j;
      } else if ((c == '+' || c == '-') && (prev == 'e' || prev == 'p')) {
        ++j;
      } else if (c == '\'' && j + 1 < t.size() && IsIdentChar(t[j + 1])) {
        j += 2;
      } else {
        break;
      }
    }
    return j;
  }

  Result<size_t> LiteralEnd(size_t i) const {
    const std::string& t = s_.text;
    const size_t q = LiteralQuote(i);
    const char quote = t[q];
    for (size_t j = q + 1; j < t.size(); ++j) {
      if (t[j] == '\\') {
        ++j;
      } else if (t[j] == quote) {
        return j + 1;
      } else if (t[j] == '\n') {
        break;
      }
    }
    return Fail(i, quote == '\'' ? "missing terminating ' character" : "missing terminating \" character");
  }

  CondToken Make(CondToken::Kind kind, size_t b, size_t e) const {
    return CondToken{kind, s_.text.substr(b, e - b), s_.Origin(b), s_.Origin(e - 1) + 1};
  }

  Error Fail(size_t spliced_offset, std::string message) const {
    return Error{std::move(message), LocationOf(raw_, s_.Origin(spliced_offset))};
  }

  std::string_view raw_;
  Spliced s_;
};

}  // namespace

Result<std::vector<CondToken>> LexCondition(std::string_view text) { return Lexer(text).Run(); }

Location LocationOf(std::string_view text, size_t offset) {
  Location where{"", 1, 1};
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++where.line;
      where.column = 1;
    } else {
      ++where.column;
    }
  }
  return where;
}

}  // namespace archpatch::cuda
