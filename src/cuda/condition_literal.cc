#include "cuda/condition_literal.h"

#include <cctype>
#include <string>

#include <fmt/format.h>

namespace archpatch::cuda {
namespace {

int DigitValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return 99;
}

Error Bad(std::string message) { return Error{std::move(message), {}}; }

// Suffix letters as cpp accepts them: at most one u, and l or ll (same case).
bool ValidSuffix(std::string_view s, bool& is_unsigned) {
  is_unsigned = false;
  std::string rest(s);
  for (size_t i = 0; i < rest.size(); ++i) {
    if (rest[i] == 'u' || rest[i] == 'U') {
      if (is_unsigned) return false;
      is_unsigned = true;
      rest.erase(i, 1);
      break;
    }
  }
  return rest.empty() || rest == "l" || rest == "L" || rest == "ll" || rest == "LL";
}

}  // namespace

Result<LiteralValue> InterpretInteger(std::string_view spelling) {
  std::string text;
  for (char c : spelling) {
    if (c != '\'') text += c;
  }
  int base = 10;
  size_t i = 0;
  if (text.size() > 1 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    base = 16, i = 2;
  } else if (text.size() > 1 && text[0] == '0' && (text[1] == 'b' || text[1] == 'B')) {
    base = 2, i = 2;
  } else if (text[0] == '0') {
    base = 8;
  }
  const size_t digits_begin = i;
  while (i < text.size() && std::isxdigit(static_cast<unsigned char>(text[i])) &&
         (base == 16 || std::isdigit(static_cast<unsigned char>(text[i])))) {
    ++i;
  }
  const std::string_view digits = std::string_view(text).substr(digits_begin, i - digits_begin);
  const std::string_view suffix = std::string_view(text).substr(i);
  if (base != 16 && (suffix.find('.') != std::string_view::npos || suffix.find_first_of("eE") == 0)) {
    return Bad(fmt::format("floating constant '{}' in a #if condition", spelling));
  }
  if (base == 16 && suffix.find_first_of(".pP") != std::string_view::npos) {
    return Bad(fmt::format("floating constant '{}' in a #if condition", spelling));
  }
  LiteralValue out;
  if (!ValidSuffix(suffix, out.is_unsigned)) {
    return Bad(fmt::format("invalid suffix '{}' on integer constant", suffix));
  }
  if (digits.empty() && base != 8) return Bad(fmt::format("invalid integer constant '{}'", spelling));
  for (char c : digits) {
    const int d = DigitValue(c);
    if (d >= base) return Bad(fmt::format("invalid digit '{}' in {} constant", c, base == 8 ? "octal" : "binary"));
    if (out.bits > (UINTMAX_MAX - d) / base) {
      return Bad(fmt::format("integer constant '{}' is too large", spelling));
    }
    out.bits = out.bits * base + d;
  }
  if (out.bits > static_cast<uintmax_t>(INTMAX_MAX)) out.is_unsigned = true;
  return out;
}

namespace {

// One character of a char literal body starting at `i`; advances `i` past it.
Result<uintmax_t> NextChar(std::string_view body, size_t& i) {
  if (body[i] != '\\') return static_cast<unsigned char>(body[i++]);
  if (++i >= body.size()) return Bad("incomplete escape sequence");
  const char c = body[i++];
  switch (c) {
    case 'n': return '\n';
    case 't': return '\t';
    case 'r': return '\r';
    case 'a': return '\a';
    case 'b': return '\b';
    case 'f': return '\f';
    case 'v': return '\v';
    case 'e': return 27;
    case '\\':
    case '\'':
    case '"':
    case '?': return static_cast<unsigned char>(c);
    case 'x': {
      uintmax_t v = 0;
      const size_t start = i;
      while (i < body.size() && std::isxdigit(static_cast<unsigned char>(body[i]))) v = v * 16 + DigitValue(body[i++]);
      if (i == start) return Bad("\\x used with no following hex digits");
      return v;
    }
    default:
      if (c >= '0' && c <= '7') {
        uintmax_t v = c - '0';
        for (int n = 0; n < 2 && i < body.size() && body[i] >= '0' && body[i] <= '7'; ++n)
          v = v * 8 + (body[i++] - '0');
        return v;
      }
      return Bad(fmt::format("unknown escape sequence '\\{}'", c));
  }
}

}  // namespace

Result<LiteralValue> InterpretChar(std::string_view spelling) {
  const size_t open = spelling.find('\'');
  const std::string_view prefix = spelling.substr(0, open);
  const std::string_view body = spelling.substr(open + 1, spelling.size() - open - 2);
  if (body.empty()) return Bad("empty character constant");
  // Narrow chars are 8-bit signed on the hosts nvcc supports; L is a 32-bit signed wchar_t;
  // u and U are unsigned 16/32-bit.
  const int width = prefix.empty() || prefix == "u8" ? 8 : prefix == "u" ? 16 : 32;
  const bool is_signed = prefix.empty() || prefix == "L";
  uintmax_t value = 0;
  int count = 0;
  for (size_t i = 0; i < body.size(); ++count) {
    Result<uintmax_t> c = NextChar(body, i);
    if (!c) return c.error();
    value = (value << width) | (*c & ((uintmax_t{1} << width) - 1));
  }
  // A multi-character constant is an int; a single one has the literal's own width.
  const int bits = count > 1 && prefix.empty() ? 32 : width;
  value &= bits >= 64 ? UINTMAX_MAX : (uintmax_t{1} << bits) - 1;
  LiteralValue out{value, false};
  if (is_signed && (value >> (bits - 1)) & 1) out.bits = value | ~((uintmax_t{1} << bits) - 1);
  return out;
}

}  // namespace archpatch::cuda
