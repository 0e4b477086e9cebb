// ByteBlock's lane tests against the byte they stand for, for all 256 byte values, and the block
// searches against a search one byte at a time.
#include "util/byte_block.h"

#include <random>
#include <string>

#include <gtest/gtest.h>

namespace archpatch {
namespace {

// A block of `filler` with `c` at lane `lane`.
ByteBlock BlockWith(char c, size_t lane, char filler = 'x') {
  std::string bytes(ByteBlock::kSize, filler);
  bytes[lane] = c;
  return ByteBlock::Load(bytes.data());
}

TEST(ByteBlock, EachLaneTestHoldsForItsByteAloneAtEveryLane) {
  for (int value = 0; value < 256; ++value) {
    const char c = static_cast<char>(value);
    const char other = value == 0x7a ? 'y' : 'z';  // a lowercase letter, ASCII, not `c`
    for (size_t lane = 0; lane < ByteBlock::kSize; ++lane) {
      const ByteBlock b = BlockWith(c, lane, other);
      ASSERT_EQ(b.Is(static_cast<unsigned char>(value)).First(), lane) << value;
      ASSERT_EQ(b.NonAscii().Any(), value >= 0x80) << value;
      ASSERT_EQ(b.Below(0x20).Any(), value < 0x20) << value;
      ASSERT_TRUE(b.Below(0x80).Any()) << value;  // the filler, a letter, is below 0x80
      if (value >= 0x80) {
        ASSERT_EQ(b.NonAscii().First(), lane);
      }
      // Folded: the lower-case letter in either case, nothing else.
      const bool letter = (value >= 'a' && value <= 'z') || (value >= 'A' && value <= 'Z');
      for (unsigned char lower = 'a'; lower <= 'z'; ++lower) {
        const bool same = letter && (value | 0x20) == lower;
        ASSERT_EQ(b.Folded().Is(lower).Any(), same || lower == static_cast<unsigned char>(other)) << value;
      }
    }
  }
}

TEST(ByteBlock, FirstIsTheLowestLaneSet) {
  const ByteBlock b = ByteBlock::Load("abcabcabcabcabca");
  EXPECT_EQ(b.Is('c').First(), 2u);
  EXPECT_EQ((b.Is('c') | b.Is('b')).First(), 1u);
  EXPECT_FALSE(b.Is('d').Any());
  EXPECT_EQ(ByteBlock::Load("xxxxxxxxxxxxxxx!").Is('!').First(), 15u);
}

template <bool kNonAscii>
size_t FirstOneByOne(std::string_view s, size_t p, std::string_view stops) {
  for (; p < s.size(); ++p) {
    if (stops.find(s[p]) != std::string_view::npos || (kNonAscii && static_cast<unsigned char>(s[p]) >= 0x80)) break;
  }
  return p;
}

TEST(ByteBlock, FindFirstOfStopsWhereAByteAtATimeSearchDoes) {
  std::mt19937 rng(7);
  static constexpr std::string_view kBytes = "ab\n\r\"'{}\\\x80\xff";
  std::uniform_int_distribution<size_t> pick(0, kBytes.size() - 1);
  std::uniform_int_distribution<int> sparse(0, 40);
  for (size_t length = 0; length < 70; ++length) {
    for (int sample = 0; sample < 30; ++sample) {
      std::string text;
      for (size_t i = 0; i < length; ++i) text += sparse(rng) == 0 ? kBytes[pick(rng)] : 'a';
      for (size_t from = 0; from <= length; ++from) {
        ASSERT_EQ((FindFirstOf<false, '\n', '\r'>(text, from)), FirstOneByOne<false>(text, from, "\n\r")) << text;
        ASSERT_EQ((FindFirstOf<true, '"', '\\', '{'>(text, from)), FirstOneByOne<true>(text, from, "\"\\{")) << text;
      }
    }
  }
  EXPECT_EQ((FindFirstOf<false, '\0'>(std::string_view("abc\0d", 5), 0)), 3u);
}

}  // namespace
}  // namespace archpatch
