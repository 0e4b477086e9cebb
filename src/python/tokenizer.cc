#include "python/tokenizer.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include "util/byte_block.h"
#include "util/byte_set.h"
#include "util/identifier.h"

namespace archpatch::python {
namespace {

// ASCII letters, digits and '_' as C identifiers have them (what std::isalpha and std::isdigit say
// in the C locale, without a libc call per byte); any byte of a UTF-8 sequence too.
bool IsNameStart(unsigned char c) { return IsIdentifierStart(static_cast<char>(c)) || c >= 0x80; }
bool IsNameChar(unsigned char c) { return IsIdentifierChar(static_cast<char>(c)) || c >= 0x80; }
constexpr bool IsQuote(char c) { return c == '\'' || c == '"'; }

const ByteSet kNameBytes = BytesWhere(IsNameChar);
constexpr ByteSet kBlankBytes = BytesWhere([](unsigned char c) { return c == ' ' || c == '\t' || c == '\f'; });
// Where a comment ends: its line break.
size_t CommentEnd(std::string_view src, size_t p) { return FindFirstOf<false, '\n', '\r'>(src, p); }
// Where the bytes a string body passes over whatever its quotes and prefix end: at an escape, a
// quote, a line break or (for f-strings) a brace.
size_t PlainStringEnd(std::string_view src, size_t p) {
  return FindFirstOf<false, '\\', '\'', '"', '\n', '\r', '{', '}'>(src, p);
}

constexpr std::string_view kOps3[] = {"**=", "//=", ">>=", "<<=", "..."};
constexpr std::string_view kOps2[] = {
    "->", ":=", "**", "//", "<<", ">>", "<=", ">=", "==", "!=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "@="};
constexpr std::string_view kOps1 = "()[]{},:;.+-*/%&|^~<>=@!";

class Lexer {
 public:
  Lexer(const std::string& file, std::string_view src) : file_(file), src_(src) {}

  Result<Tokenized> Run() {
    if (src_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = line_start_ = 3;
    tokens_.resize(src_.size() / 6 + 16);  // about one token per 5-7 bytes: no copies while growing
    if (src_.find('\0') != std::string_view::npos) {
      return ErrorAt("source code cannot contain null bytes", src_.find('\0'));
    }
    while (true) {
      if (at_line_start_ && brackets_.empty()) {
        if (!ReadIndentation()) return std::move(*error_);
        if (pos_ >= src_.size()) break;
      }
      pos_ = RunEnd(pos_, kBlankBytes);
      if (pos_ >= src_.size()) break;
      if (!NextToken()) return std::move(*error_);
    }
    return Finish();
  }

 private:
  // The location of any byte offset, for errors that point back (an unclosed bracket).
  Location LocationOf(size_t at) const {
    int line = 1;
    size_t start = src_.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
    for (size_t i = start; i < at && i < src_.size(); ++i) {
      if (src_[i] == '\n' || (src_[i] == '\r' && (i + 1 >= src_.size() || src_[i + 1] != '\n'))) {
        ++line;
        start = i + 1;
      }
    }
    return Location{file_, line, static_cast<int>(at - std::min(at, start)) + 1};
  }
  Error ErrorAt(std::string message, size_t at) const { return Error{std::move(message), LocationOf(at)}; }
  // Keeps the error and stops the scan. The scanners return bool, not optional<Error>: with an
  // optional to return, NextToken was not inlined and its calls cost as much as the blank skipping.
  bool Fail(std::string message, size_t at) {
    error_ = ErrorAt(std::move(message), at);
    return false;
  }

  size_t RunEnd(size_t p, const ByteSet& set) const { return archpatch::RunEnd(src_, p, set); }

  size_t NewlineLength(size_t p) const {
    if (p >= src_.size()) return 0;
    if (src_[p] == '\r') return p + 1 < src_.size() && src_[p + 1] == '\n' ? 2 : 1;
    return src_[p] == '\n' ? 1 : 0;
  }
  void ConsumeNewline(size_t& p) {
    p += NewlineLength(p);
    ++line_;
    line_start_ = p;
  }
  char At(size_t p) const { return p < src_.size() ? src_[p] : '\0'; }
  bool IsColon(const Token& t) const { return t.end == t.begin + 1 && src_[t.begin] == ':'; }

  void Emit(TokenKind kind, size_t begin, size_t end, int line, size_t line_start, bool fstring = false) {
    // Written in place, grown by hand: push_back's call per token cost more than the token.
    if (count_ == tokens_.size()) tokens_.resize(2 * tokens_.size());
    tokens_[count_++] = Token{kind,
                              fstring,
                              static_cast<uint32_t>(begin),
                              static_cast<uint32_t>(end),
                              line,
                              static_cast<int>(begin - line_start) + 1};
    if (kind != TokenKind::kNewline && kind != TokenKind::kIndent && kind != TokenKind::kDedent) {
      line_has_tokens_ = true;
    }
  }

  void SkipComment() { pos_ = CommentEnd(src_, pos_); }

  // The offside rule at the start of a logical line: blank and comment-only lines are skipped;
  // otherwise INDENT/DEDENT tokens are emitted. Tabs advance to the next multiple of 8 and, as
  // CPython checks, must order lines the same way when counted as 1 column.
  bool ReadIndentation() {
    while (true) {
      int col = 0, alt = 0;
      const size_t start = pos_;
      for (; pos_ < src_.size(); ++pos_) {
        const char c = src_[pos_];
        if (c == ' ')
          ++col, ++alt;
        else if (c == '\t')
          col = (col / 8 + 1) * 8, ++alt;
        else if (c == '\f')
          col = alt = 0;
        else
          break;
      }
      if (pos_ >= src_.size()) return true;
      if (src_[pos_] == '#') SkipComment();
      if (NewlineLength(pos_) > 0) {
        ConsumeNewline(pos_);
        continue;
      }
      if (pos_ >= src_.size()) return true;
      at_line_start_ = false;
      return Indent(col, alt, start);
    }
  }

  bool Indent(int col, int alt, size_t line_begin) {
    if (col > indents_.back()) {
      if (alt <= alt_indents_.back()) return Fail("inconsistent use of tabs and spaces in indentation", pos_);
      if (!after_colon_) return Fail("unexpected indent", pos_);
      if (indents_.size() > kMaxIndentDepth) return Fail("too many levels of indentation", pos_);
      indents_.push_back(col);
      alt_indents_.push_back(alt);
      Emit(TokenKind::kIndent, line_begin, pos_, line_, line_start_);
      return true;
    }
    if (after_colon_) return Fail("expected an indented block", pos_);
    while (col < indents_.back()) {
      indents_.pop_back();
      alt_indents_.pop_back();
      Emit(TokenKind::kDedent, pos_, pos_, line_, line_start_);
    }
    if (col != indents_.back()) return Fail("unindent does not match any outer indentation level", pos_);
    if (alt != alt_indents_.back()) return Fail("inconsistent use of tabs and spaces in indentation", pos_);
    return true;
  }

  bool NextToken() {
    const char c = src_[pos_];
    if (c == '#') {
      SkipComment();
      return true;
    }
    if (NewlineLength(pos_) > 0) {
      if (brackets_.empty() && line_has_tokens_) {
        after_colon_ = count_ > 0 && IsColon(tokens_[count_ - 1]);
        Emit(TokenKind::kNewline, pos_, pos_ + NewlineLength(pos_), line_, line_start_);
        line_has_tokens_ = false;
        at_line_start_ = true;
      }
      ConsumeNewline(pos_);
      return true;
    }
    if (c == '\\') {
      if (NewlineLength(pos_ + 1) == 0) {
        return Fail(pos_ + 1 >= src_.size() ? "unexpected EOF after line continuation character"
                                            : "unexpected character after line continuation character",
                    pos_);
      }
      ++pos_;
      ConsumeNewline(pos_);
      return true;
    }
    if (IsNameStart(c)) return NameOrString();
    if (std::isdigit(static_cast<unsigned char>(c)) ||
        (c == '.' && std::isdigit(static_cast<unsigned char>(At(pos_ + 1))))) {
      return Number();
    }
    if (IsQuote(c)) return String(pos_, "");
    return Operator();
  }

  bool NameOrString() {
    const size_t begin = pos_;
    pos_ = RunEnd(pos_, kNameBytes);
    const std::string_view name = src_.substr(begin, pos_ - begin);
    if (IsQuote(At(pos_)) && IsStringPrefix(name)) return String(begin, name);
    Emit(TokenKind::kName, begin, pos_, line_, line_start_);
    return true;
  }

  bool Number() {
    const size_t begin = pos_;
    auto digits = [&](auto pred) {
      while (pos_ < src_.size() && (pred(static_cast<unsigned char>(src_[pos_])) || src_[pos_] == '_')) ++pos_;
    };
    auto is_digit = [](unsigned char ch) { return std::isdigit(ch) != 0; };
    const char next = static_cast<char>(std::tolower(static_cast<unsigned char>(At(pos_ + 1))));
    if (src_[pos_] == '0' && (next == 'x' || next == 'o' || next == 'b')) {
      pos_ += 2;
      digits([](unsigned char ch) { return std::isxdigit(ch) != 0; });
    } else {
      digits(is_digit);
      if (At(pos_) == '.') ++pos_, digits(is_digit);
      const char e = At(pos_);
      if ((e == 'e' || e == 'E') &&
          (std::isdigit(static_cast<unsigned char>(At(pos_ + 1))) ||
           ((At(pos_ + 1) == '+' || At(pos_ + 1) == '-') && std::isdigit(static_cast<unsigned char>(At(pos_ + 2)))))) {
        pos_ += 2;
        digits(is_digit);
      }
      if (At(pos_) == 'j' || At(pos_) == 'J') ++pos_;
    }
    Emit(TokenKind::kNumber, begin, pos_, line_, line_start_);
    return true;
  }

  bool String(size_t begin, std::string_view prefix) {
    const int line = line_;
    const size_t line_start = line_start_;
    const bool fstring = prefix.find_first_of("fFtT") != std::string_view::npos;
    const bool raw = prefix.find_first_of("rR") != std::string_view::npos;
    pos_ = begin + prefix.size();
    if (!StringBody(pos_, raw, fstring, 0)) return false;
    Emit(TokenKind::kString, begin, pos_, line, line_start, fstring);
    return true;
  }

  // Scans from the opening quote at `p` to just past the closing one. A backslash always takes
  // the next character with it (in raw strings too, so r"\"" stays one string).
  bool StringBody(size_t& p, bool raw, bool fstring, int depth) {
    const size_t open = p;
    const char q = src_[p];
    const bool triple = At(p + 1) == q && At(p + 2) == q;
    p += triple ? 3 : 1;
    while (true) {
      if (p >= src_.size()) {
        return Fail(triple ? "unterminated triple-quoted string literal" : "unterminated string literal", open);
      }
      p = PlainStringEnd(src_, p);
      if (p >= src_.size()) continue;  // unterminated: the check above reports it
      const char c = src_[p];
      if (c == '\\') {
        ++p;
        if (fstring && !raw && At(p) == 'N' && At(p + 1) == '{') {
          while (p < src_.size() && src_[p] != '}' && src_[p] != q) ++p;  // \N{NAME} is no field
          if (At(p) == '}') ++p;
        } else if (fstring && (At(p) == '{' || At(p) == '}')) {
          // a backslash does not escape a brace: rf"\{x}" still has a field
        } else if (NewlineLength(p) > 0) {
          ConsumeNewline(p);
        } else if (p < src_.size()) {
          ++p;
        }
      } else if (NewlineLength(p) > 0) {
        if (!triple) return Fail("unterminated string literal", open);
        ConsumeNewline(p);
      } else if (c == q) {
        if (!triple) return ++p, true;
        if (At(p + 1) == q && At(p + 2) == q) return p += 3, true;
        ++p;
      } else if (fstring && (c == '{' || c == '}')) {
        if (At(p + 1) == c) {
          p += 2;
        } else if (c == '}') {
          return Fail("f-string: single '}' is not allowed", p);
        } else {
          ++p;
          if (!ReplacementField(p, q, triple, depth + 1)) return false;
        }
      } else {
        ++p;
      }
    }
  }

  // The expression part of an f-string field, up to and including its closing brace. Quotes
  // start nested strings (PEP 701 allows the enclosing quote too); a top-level ':' starts the
  // format spec, which may hold nested fields.
  bool ReplacementField(size_t& p, char q, bool triple, int depth) {
    if (depth > kMaxFStringDepth) return Fail("f-string: expressions nested too deeply", p);
    const size_t open = p - 1;  // the '{'
    int nest = 0;
    while (true) {
      if (p >= src_.size()) return Fail("f-string: expecting '}'", open);
      const char c = src_[p];
      if (NewlineLength(p) > 0) {
        ConsumeNewline(p);
      } else if (IsNameStart(c)) {
        const size_t begin = p;
        while (p < src_.size() && IsNameChar(src_[p])) ++p;
        const std::string_view name = src_.substr(begin, p - begin);
        if (IsQuote(At(p)) && IsStringPrefix(name)) {
          const bool f = name.find_first_of("fFtT") != std::string_view::npos;
          if (!StringBody(p, false, f, depth)) return false;
        }
      } else if (IsQuote(c)) {
        if (!StringBody(p, false, false, depth)) return false;
      } else if (c == '(' || c == '[' || c == '{') {
        ++nest, ++p;
      } else if (c == ')' || c == ']') {
        nest = std::max(0, nest - 1), ++p;
      } else if (c == '}') {
        ++p;
        if (nest == 0) return true;
        --nest;
      } else if (c == '!' && nest == 0 && At(p + 1) != '=') {
        ++p;
      } else if (c == '#') {  // PEP 701: a comment inside a multi-line field
        while (p < src_.size() && NewlineLength(p) == 0) ++p;
      } else if (c == ':' && nest == 0) {
        ++p;
        return FormatSpec(p, q, triple, depth, open);
      } else {
        ++p;
      }
    }
  }

  bool FormatSpec(size_t& p, char q, bool triple, int depth, size_t open) {
    while (true) {
      if (p >= src_.size()) return Fail("f-string: expecting '}'", open);
      const char c = src_[p];
      if (c == '}') return ++p, true;
      if (c == '{') {
        ++p;
        if (!ReplacementField(p, q, triple, depth + 1)) return false;
      } else if (NewlineLength(p) > 0) {
        if (!triple) return Fail("f-string: expecting '}'", open);
        ConsumeNewline(p);
      } else if (c == q && !triple) {
        return Fail("f-string: expecting '}'", open);
      } else {
        ++p;
      }
    }
  }

  bool Operator() {
    const size_t begin = pos_;
    const char c = src_[pos_];
    const size_t len = OperatorLength(src_.substr(pos_));
    if (len == 0) {
      return Fail(fmt::format("invalid character '{}' (U+{:04X})", c, static_cast<unsigned char>(c)), begin);
    }
    if (len == 1) {
      if (!Bracket(c)) return false;
    }
    pos_ += len;
    Emit(TokenKind::kOp, begin, pos_, line_, line_start_);
    return true;
  }

  // The length of the longest operator `rest` starts with, 0 for none. The first byte rules out
  // nearly every candidate before a compare: a third of all tokens are operators.
  // Most operators are one byte followed by a byte no longer operator has second ("(", ", "):
  // those skip the lists.
  static size_t OperatorLength(std::string_view rest) {
    static const std::array<bool, 256> kSecondBytes = [] {
      std::array<bool, 256> second{};
      for (std::string_view op : kOps2) second[static_cast<unsigned char>(op[1])] = true;
      for (std::string_view op : kOps3) second[static_cast<unsigned char>(op[1])] = true;
      return second;
    }();
    static const std::array<bool, 256> kFirstBytes = [] {
      std::array<bool, 256> first{};
      for (char c : kOps1) first[static_cast<unsigned char>(c)] = true;
      return first;
    }();
    const size_t single = kFirstBytes[static_cast<unsigned char>(rest[0])] ? 1 : 0;
    if (rest.size() < 2 || !kSecondBytes[static_cast<unsigned char>(rest[1])]) return single;
    auto starts = [&](std::string_view op) { return rest[0] == op[0] && rest.starts_with(op); };
    if (std::any_of(std::begin(kOps3), std::end(kOps3), starts)) return 3;
    if (std::any_of(std::begin(kOps2), std::end(kOps2), starts)) return 2;
    return single;
  }

  bool Bracket(char c) {
    if (c == '(' || c == '[' || c == '{') {
      if (brackets_.size() >= kMaxBracketDepth) return Fail("too many nested parentheses", pos_);
      brackets_.push_back({pos_, count_});
      return true;
    }
    if (c != ')' && c != ']' && c != '}') return true;
    if (brackets_.empty()) return Fail(fmt::format("unmatched '{}'", c), pos_);
    const char open = src_[brackets_.back().offset];
    const char want = open == '(' ? ')' : open == '[' ? ']' : '}';
    if (c != want) {
      return Fail(fmt::format("closing parenthesis '{}' does not match opening parenthesis '{}'", c, open), pos_);
    }
    pairs_.emplace_back(brackets_.back().token, count_);
    brackets_.pop_back();
    return true;
  }

  Result<Tokenized> Finish() {
    if (!brackets_.empty()) {
      const size_t open = brackets_.back().offset;
      return ErrorAt(fmt::format("'{}' was never closed", src_[open]), open);
    }
    if (line_has_tokens_) {
      if (IsColon(tokens_[count_ - 1])) return ErrorAt("expected an indented block", pos_);
      Emit(TokenKind::kNewline, pos_, pos_, line_, line_start_);
    } else if (after_colon_ && at_line_start_) {
      return ErrorAt("expected an indented block", pos_);
    }
    for (size_t i = 1; i < indents_.size(); ++i) Emit(TokenKind::kDedent, pos_, pos_, line_, line_start_);
    Emit(TokenKind::kEnd, pos_, pos_, line_, line_start_);
    tokens_.resize(count_);
    Tokenized out{std::move(tokens_), std::vector<size_t>(count_, std::string_view::npos)};
    for (auto [open, close] : pairs_) out.match[open] = close, out.match[close] = open;
    return out;
  }

  const std::string& file_;
  std::string_view src_;
  size_t pos_ = 0;
  int line_ = 1;
  size_t line_start_ = 0;
  bool at_line_start_ = true;
  bool line_has_tokens_ = false;
  bool after_colon_ = false;  // the last logical line ended with ':' (a block must follow)
  std::vector<int> indents_{0};
  std::vector<int> alt_indents_{0};
  struct OpenBracket {
    size_t offset;
    size_t token;  // the index its token has
  };
  std::vector<OpenBracket> brackets_;
  std::vector<std::pair<size_t, size_t>> pairs_;  // matched brackets: open and close token indices
  std::vector<Token> tokens_;                     // [0, count_) written; the rest is room to grow into
  size_t count_ = 0;
  std::optional<Error> error_;  // set by Fail
};

}  // namespace

bool IsStringPrefix(std::string_view text) {
  if (text.empty() || text.size() > 3) return false;
  int r = 0, b = 0, u = 0, f = 0, t = 0;
  for (char c : text) {
    switch (std::tolower(static_cast<unsigned char>(c))) {
      case 'r': ++r; break;
      case 'b': ++b; break;
      case 'u': ++u; break;
      case 'f': ++f; break;
      case 't': ++t; break;
      default: return false;
    }
  }
  if (r > 1 || b > 1 || u > 1 || f > 1 || t > 1) return false;
  if (u) return text.size() == 1;   // u"" takes no other letter
  if (b && (f || t)) return false;  // no bytes f-strings
  if (f && t) return false;
  return true;
}

std::string_view StringBody(std::string_view text) {
  size_t i = 0;
  while (i < text.size() && !IsQuote(text[i])) ++i;
  text.remove_prefix(i);
  const size_t quotes = text.size() >= 6 && text[1] == text[0] && text[2] == text[0] ? 3 : 1;
  if (text.size() < 2 * quotes) return {};
  return text.substr(quotes, text.size() - 2 * quotes);
}

Result<Tokenized> TokenizeMatched(const std::string& file, std::string_view source) {
  if (source.size() > UINT32_MAX - 1) return Error{"source too large to tokenize", Location{file, 0, 0}};
  return Lexer(file, source).Run();
}

Result<std::vector<Token>> Tokenize(const std::string& file, std::string_view source) {
  Result<Tokenized> out = TokenizeMatched(file, source);
  if (!out) return out.error();
  return std::move(out->tokens);
}

}  // namespace archpatch::python
