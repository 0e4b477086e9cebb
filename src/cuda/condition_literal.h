// The values of integer and character literals in a #if, as GCC's cpp reads them.
#pragma once

#include <cstdint>
#include <string_view>

#include "util/result.h"

namespace archpatch::cuda {

struct LiteralValue {
  uintmax_t bits = 0;        // two's complement bits of the intmax_t/uintmax_t value
  bool is_unsigned = false;  // u suffix, or too large for intmax_t (cpp then treats it unsigned)
};

// Decimal, 0x hex, 0b binary and 0 octal literals with u, l, ul, lu, ll, ull, llu suffixes (any
// case) and C++14 digit separators. Floating constants and bad digits/suffixes are errors
// (Error.where is left empty; the caller knows the place).
Result<LiteralValue> InterpretInteger(std::string_view spelling);

// 'a', '\n', '\x41', '\101', multi-character 'ab', and L/u/U/u8 prefixes.
Result<LiteralValue> InterpretChar(std::string_view spelling);

}  // namespace archpatch::cuda
