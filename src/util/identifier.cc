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

NameFilter::NameFilter(const std::set<std::string, std::less<>>& names) : names_(names) {
  for (const std::string& name : names) {
    // A name that starts with no identifier byte is never an identifier of the text.
    if (name.empty() || !IsIdentifierStart(name.front())) continue;
    first_.set(static_cast<unsigned char>(name.front())), last_.set(static_cast<unsigned char>(name.back()));
    shortest_ = std::min(shortest_, name.size()), longest_ = std::max(longest_, name.size());
  }
}

bool NameFilter::IsName(std::string_view word) const {
  return word.size() >= shortest_ && word.size() <= longest_ && first_[static_cast<unsigned char>(word.front())] &&
         last_[static_cast<unsigned char>(word.back())] && names_.count(word);
}

bool NameFilter::MentionedIn(std::string_view text) const {
  if (first_.none()) return false;
  auto is_name = [this](std::string_view word) { return IsName(word); };
  if (first_.count() <= kFewFirstBytes) return MentionsAtFirstBytes(text, first_, is_name);
  bool found = false;
  ForEachIdentifier(text, [&](std::string_view word, size_t) { return found = is_name(word); });
  return found;
}

bool IsIdentifier(std::string_view text) {
  return !text.empty() && IsIdentifierStart(text[0]) && IdentifierRunAt(text, 0) == text.size();
}

}  // namespace archpatch
