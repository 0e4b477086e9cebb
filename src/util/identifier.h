// C identifiers in text: the one definition of "this byte is part of a name" that macro names,
// conditions, rule fields and cache roots share. (The condition lexer also takes '$', as GCC's
// preprocessor does; a dotted Python name is python_link's own.)
#pragma once

#include <array>
#include <bitset>
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>

namespace archpatch {

namespace identifier_detail {
enum : unsigned char { kStart = 1, kChar = 2 };
// One flag byte per byte value: ForEachIdentifier tests every byte of whole files (the package-macro
// rescans read each C++ file again), and a table load costs less there than three range tests.
inline constexpr std::array<unsigned char, 256> kClass = [] {
  std::array<unsigned char, 256> t{};
  for (int c = 0; c < 256; ++c) {
    const bool start = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    t[c] = static_cast<unsigned char>((start ? kStart | kChar : 0) | (c >= '0' && c <= '9' ? kChar : 0));
  }
  return t;
}();
}  // namespace identifier_detail

constexpr bool IsIdentifierStart(char c) {
  return identifier_detail::kClass[static_cast<unsigned char>(c)] & identifier_detail::kStart;
}
constexpr bool IsIdentifierChar(char c) {
  return identifier_detail::kClass[static_cast<unsigned char>(c)] & identifier_detail::kChar;
}

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

// Whether an identifier of a text (outside nothing: a byte-level scan, comments included) is one
// of `names`: package macros in a file's text, a loader's name in a Python module. Made once for
// many texts (a round's files, a file's directives): most identifiers differ from every name in
// length or first or last byte, and skip the set.
class NameFilter {
 public:
  explicit NameFilter(const std::set<std::string, std::less<>>& names);  // kept by reference
  bool MentionedIn(std::string_view text) const;
  bool Has(std::string_view name) const { return names_.count(name) > 0; }

 private:
  bool IsName(std::string_view word) const;
  const std::set<std::string, std::less<>>& names_;
  std::bitset<256> first_, last_;
  size_t shortest_ = SIZE_MAX, longest_ = 0;
};

inline bool MentionsAnyName(std::string_view contents, const std::set<std::string, std::less<>>& names) {
  return NameFilter(names).MentionedIn(contents);
}

}  // namespace archpatch
