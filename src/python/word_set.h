// A small set of short words (Python keywords) asked about nearly every name of a module. Most
// names share no first byte and length with any word: a table of those refuses them at once. The
// rest (mostly the keywords themselves: lines start with `if`, `return`, `for`) find their one
// candidate in a hash table built at compile time, with no search through the list.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace archpatch::python {

template <size_t N>
class WordSet {
 public:
  // Each of `words` must be non-empty, shorter than 16 bytes and listed once.
  constexpr explicit WordSet(const std::string_view (&words)[N]) : words_(words) {
    static_assert(N < kSlots / 2, "a sparse table keeps the probe sequences short");
    for (size_t w = 0; w < N; ++w) {
      lengths_[static_cast<unsigned char>(words[w][0])] |= uint16_t{1} << words[w].size();
      size_t slot = Slot(words[w]);
      while (slots_[slot] != 0) slot = (slot + 1) % kSlots;
      slots_[slot] = static_cast<uint8_t>(w + 1);
    }
  }

  bool Has(std::string_view name) const {
    if (name.empty() || name.size() >= 16) return false;
    if (((lengths_[static_cast<unsigned char>(name[0])] >> name.size()) & 1U) == 0) return false;
    for (size_t slot = Slot(name); slots_[slot] != 0; slot = (slot + 1) % kSlots) {
      if (words_[slots_[slot] - 1] == name) return true;
    }
    return false;
  }

 private:
  static constexpr size_t kSlots = 128;
  static constexpr size_t Slot(std::string_view w) {
    return (static_cast<unsigned char>(w[0]) * 7U + static_cast<unsigned char>(w.back()) * 3U + w.size() * 13U) %
           kSlots;
  }

  const std::string_view (&words_)[N];
  std::array<uint16_t, 256> lengths_{};  // per first byte, a bit for each length a word has
  std::array<uint8_t, kSlots> slots_{};  // 1 + the index of a word, 0 for an empty slot
};

}  // namespace archpatch::python
