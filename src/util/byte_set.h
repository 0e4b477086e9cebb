// A set of byte values and the end of a run of them: the inner loop of every byte-level reader
// (the Python lexer's blanks, names and string bodies; the C/C++ prefilter's punctuation and
// identifiers), where most of a file's bytes are passed over one at a time.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

namespace archpatch {

using ByteSet = std::array<bool, 256>;

template <typename Pred>
constexpr ByteSet BytesWhere(Pred pred) {
  ByteSet set{};
  for (int c = 0; c < 256; ++c) set[c] = pred(static_cast<unsigned char>(c));
  return set;
}

// Where the run of `set` bytes of `s` from `p` ends (s.size() when it reaches the end), with one
// bounds check per four bytes: the runs are most of a file.
inline size_t RunEnd(std::string_view s, size_t p, const ByteSet& set) {
  // Through locals: a char may alias anything, so members would be reloaded after every byte.
  const char* const d = s.data();
  const size_t n = s.size();
  auto in = [&](size_t at) { return set[static_cast<unsigned char>(d[at])]; };
  for (; p + 4 <= n; p += 4) {
    if (!in(p)) return p;
    if (!in(p + 1)) return p + 1;
    if (!in(p + 2)) return p + 2;
    if (!in(p + 3)) return p + 3;
  }
  while (p < n && in(p)) ++p;
  return p;
}

}  // namespace archpatch
