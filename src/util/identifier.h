// C identifiers in text: the one definition of "this byte is part of a name" that macro names,
// conditions, rule fields and cache roots share. (The condition lexer also takes '$', as GCC's
// preprocessor does; a dotted Python name is python_link's own.)
#pragma once

#include <cstddef>
#include <string_view>

namespace archpatch {

inline bool IsIdentifierStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
inline bool IsIdentifierChar(char c) { return IsIdentifierStart(c) || (c >= '0' && c <= '9'); }

// A whole identifier: "__CUDA_ARCH__", not "1200" or "a-b".
bool IsIdentifier(std::string_view text);

// The length of the run of identifier characters at `text[at]` (0 when there is none).
inline size_t IdentifierRunAt(std::string_view text, size_t at) {
  size_t end = at;
  while (end < text.size() && IsIdentifierChar(text[end])) ++end;
  return end - at;
}

// Calls `visit(name, offset)` for each identifier of `text` in order, whole: "A_B1" once, never
// "B1"; a run that starts with a digit is a number ("1200", "0x1f") and is skipped whole.
// `visit` returns true to stop.
template <class Visit>
void ForEachIdentifier(std::string_view text, Visit&& visit) {
  for (size_t i = 0; i < text.size();) {
    const size_t n = IdentifierRunAt(text, i);
    if (n == 0) {
      ++i;
      continue;
    }
    if (IsIdentifierStart(text[i]) && visit(text.substr(i, n), i)) return;
    i += n;
  }
}

}  // namespace archpatch
