#include "cuda/directive_lines.h"

#include <array>
#include <cstdint>
#include <cstring>

#include "util/byte_block.h"

namespace archpatch::cuda {
namespace {

// What a byte of code means to the skim.
enum class ByteClass : uint8_t { kPlain, kNewline, kQuote, kSlash, kStop };

struct ByteClasses {
  std::array<ByteClass, 256> of{};
  ByteClasses() {
    of['\n'] = ByteClass::kNewline;
    of['"'] = of['\''] = ByteClass::kQuote;
    of['/'] = ByteClass::kSlash;
    of['\\'] = of['\0'] = ByteClass::kStop;  // a splice or a UCN; a NUL, which the lexer reads as a blank
    for (int c = 0x80; c < 0x100; ++c) of[c] = ByteClass::kStop;  // a name's or a space's byte
  }
};
const ByteClasses kClasses;

bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\f' || c == '\v' || c == '\r' || c == '\n'; }
bool IsHorizontalBlank(char c) { return c == ' ' || c == '\t' || c == '\f' || c == '\v'; }
// A byte a name or a number ends with: an apostrophe after it may be a digit separator.
bool EndsNameOrNumber(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '$';
}

class Skim {
 public:
  explicit Skim(std::string_view s) : s_(s), n_(s.size()) {}

  std::optional<std::vector<Token>> Run() {
    size_t p = 0;
    bool line_start = true;  // no token but comments since the last line break
    while (p < n_) {
      if (line_start) {
        while (p < n_ && IsBlank(s_[p])) ++p;
        if (p == n_) break;
        if (s_[p] == '#') {
          if (!Directive(p, line_start)) return std::move(tokens_);
          continue;
        }
        line_start = s_[p] == '/' && p + 1 < n_ && (s_[p + 1] == '*' || s_[p + 1] == '/');
      }
      p = PlainEnd(p);
      if (p == n_) break;
      switch (kClasses.of[static_cast<unsigned char>(s_[p])]) {
        case ByteClass::kPlain: break;
        case ByteClass::kNewline: ++p, line_start = true; break;
        case ByteClass::kQuote:
          if (s_[p] == '\'' && p > 0 && EndsNameOrNumber(s_[p - 1])) return std::nullopt;
          if (!LiteralEnd(p)) return std::nullopt;
          break;
        case ByteClass::kSlash:
          if (!AfterSlash(p, line_start)) return std::nullopt;
          if (p == npos) return std::move(tokens_);  // an unterminated block comment ends the tokens
          break;
        case ByteClass::kStop: return std::nullopt;
      }
    }
    return std::move(tokens_);
  }

 private:
  static constexpr size_t npos = std::string_view::npos;

  // Past the plain bytes from `p` (kClasses), most of a file.
  size_t PlainEnd(size_t p) const { return FindFirstOf<true, '\n', '"', '\'', '/', '\\', '\0'>(s_, p); }

  // The line at `p`, a `#` that starts it: its tokens when the lexer makes a `#` of it. False when
  // the file's tokens end on that line.
  bool Directive(size_t& p, bool& line_start) {
    LogicalLineTokens line = TokenizeLogicalLine(s_, p);
    if (line.tokens.empty()) return false;
    if (line.tokens[0].Spelling(s_) != "#") {  // `##`, or `#` spliced to what follows
      p = line.tokens[0].end;
      line_start = false;
      return true;
    }
    tokens_.insert(tokens_.end(), line.tokens.begin(), line.tokens.end());
    if (line.next == npos) return false;
    p = line.next;  // the first token of the next line
    line_start = true;
    return true;
  }

  // Whether a backslash, then blanks, sits right before `end` (a line's end): a splice, which
  // continues the comment or literal on the next line as the lexer reads it.
  bool SplicedBefore(size_t end) const {
    while (end > 0 && (IsHorizontalBlank(s_[end - 1]) || s_[end - 1] == '\r')) --end;
    return end > 0 && s_[end - 1] == '\\';
  }

  // Past the string or character literal opened at `p` (QuotedEnd): its closing quote, or the
  // line's end when it has none (the lexer's one unknown token). False where it would splice.
  bool LiteralEnd(size_t& p) const {
    const char quote = s_[p];
    size_t q = p + 1;
    while (q < n_) {
      const char c = s_[q];
      if (c == quote) {
        p = q + 1;
        return true;
      }
      if (c == '\n' || c == '\r') break;
      q += c == '\\' && q + 1 < n_ && s_[q + 1] != '\n' && s_[q + 1] != '\r' ? 2 : 1;
    }
    p = q;
    return !SplicedBefore(q);
  }

  // At a `/`: past a comment it opens (npos for a block comment that never ends), or past the
  // slash. False where a splice could end or continue the comment otherwise than the skim reads.
  bool AfterSlash(size_t& p, bool& line_start) const {
    if (p + 1 >= n_ || (s_[p + 1] != '/' && s_[p + 1] != '*')) {
      if (p + 1 < n_ && s_[p + 1] == '\\') return false;  // `/\` newline `*`
      ++p;
      return true;
    }
    if (s_[p + 1] == '/') {
      size_t end = p + 2;
      while (end < n_ && s_[end] != '\n' && s_[end] != '\r') ++end;
      if (SplicedBefore(end)) return false;
      p = end;
      line_start = true;  // ChainBuilder's StartsLine: a `//` comment ends a line
      return true;
    }
    const size_t close = s_.find("*/", p + 2);
    const size_t end = close == npos ? n_ : close;
    for (size_t b = p + 2; b < end; ++b) {
      b = s_.find('\\', b);
      if (b == npos || b >= end) break;
      size_t after = b + 1;
      while (after < end && IsHorizontalBlank(s_[after])) ++after;
      if (after < n_ && (s_[after] == '\n' || s_[after] == '\r')) return false;  // `*\` newline `/` ends it
    }
    p = close == npos ? npos : close + 2;
    return true;
  }

  std::string_view s_;
  size_t n_;
  std::vector<Token> tokens_;
};

}  // namespace

std::optional<std::vector<Token>> DirectiveLineTokens(std::string_view contents) {
  if (contents.size() > kMaxTokenizedBytes) return std::vector<Token>{};  // as Tokenize
  if (MayHoldRawString(contents)) return std::nullopt;
  return Skim(contents).Run();
}

}  // namespace archpatch::cuda
