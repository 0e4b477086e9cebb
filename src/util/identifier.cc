#include "util/identifier.h"

#include <algorithm>
#include <bitset>
#include <cstdint>

namespace archpatch {
namespace {

// A package's macros share a few first bytes (CUTE_ARCH_*, CUTLASS_ARCH_*): with at most this many,
// each byte's occurrences are found by memchr rather than every identifier of the file walked.
constexpr size_t kFewFirstBytes = 4;

// Whether an identifier that starts with a byte of `first` is one `is_name` takes. An occurrence
// starts an identifier where no identifier byte precedes it: the word there is the one
// ForEachIdentifier would give (a run inside a longer name or a number is no identifier).
template <class IsName>
bool MentionsAtFirstBytes(std::string_view text, const std::bitset<256>& first, IsName&& is_name) {
  for (int b = 0; b < 256; ++b) {
    if (!first[b]) continue;
    const char c = static_cast<char>(b);
    for (size_t at = text.find(c); at != std::string_view::npos; at = text.find(c, at + 1)) {
      if (at > 0 && IsIdentifierChar(text[at - 1])) continue;
      if (is_name(text.substr(at, IdentifierRunAt(text, at)))) return true;
    }
  }
  return false;
}

}  // namespace

bool MentionsAnyName(std::string_view contents, const std::set<std::string, std::less<>>& names) {
  if (names.empty()) return false;
  // Most identifiers differ from every name in length or first or last byte: those skip the set.
  std::bitset<256> first, last;
  size_t shortest = SIZE_MAX, longest = 0;
  for (const std::string& name : names) {
    // A name that starts with no identifier byte is never an identifier of the text.
    if (name.empty() || !IsIdentifierStart(name.front())) continue;
    first.set(static_cast<unsigned char>(name.front())), last.set(static_cast<unsigned char>(name.back()));
    shortest = std::min(shortest, name.size()), longest = std::max(longest, name.size());
  }
  auto is_name = [&](std::string_view word) {
    return word.size() >= shortest && word.size() <= longest && first[static_cast<unsigned char>(word.front())] &&
           last[static_cast<unsigned char>(word.back())] && names.count(word);
  };
  if (first.none()) return false;
  if (first.count() <= kFewFirstBytes) return MentionsAtFirstBytes(contents, first, is_name);
  bool found = false;
  ForEachIdentifier(contents, [&](std::string_view word, size_t) { return found = is_name(word); });
  return found;
}

bool IsIdentifier(std::string_view text) {
  return !text.empty() && IsIdentifierStart(text[0]) && IdentifierRunAt(text, 0) == text.size();
}

}  // namespace archpatch
