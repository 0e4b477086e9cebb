#include "binary/lz4.h"

#include <gtest/gtest.h>

namespace archpatch::binary {
namespace {

Result<std::string> Decode(const std::vector<uint8_t>& block, size_t size) { return Lz4DecompressBlock(block, size); }

TEST(Lz4, LiteralsOnly) {
  Result<std::string> out = Decode({0x50, 'h', 'e', 'l', 'l', 'o'}, 5);
  ASSERT_TRUE(out.ok()) << out.error().message;
  EXPECT_EQ(*out, "hello");
}

TEST(Lz4, OverlappingMatchRepeatsTheLastBytes) {
  // "ab", then a match of 4+2 bytes at offset 2 ("ababab"), then literal "!".
  Result<std::string> out = Decode({0x22, 'a', 'b', 0x02, 0x00, 0x10, '!'}, 9);
  ASSERT_TRUE(out.ok()) << out.error().message;
  EXPECT_EQ(*out, "abababab!");
}

TEST(Lz4, LongLiteralLengthUsesExtensionBytes) {
  std::vector<uint8_t> block = {0xF0, 5};  // 15 + 5 = 20 literals
  for (int i = 0; i < 20; ++i) block.push_back('x');
  Result<std::string> out = Decode(block, 20);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(*out, std::string(20, 'x'));
}

TEST(Lz4, MalformedBlocksAreErrorsNotCrashes) {
  EXPECT_FALSE(Decode({0x50, 'h', 'i'}, 5).ok());                 // literals past the input
  EXPECT_FALSE(Decode({0x10, 'a', 0x05, 0x00}, 10).ok());         // offset before the output
  EXPECT_FALSE(Decode({0x10, 'a', 0x00, 0x00}, 10).ok());         // offset zero
  EXPECT_FALSE(Decode({0x1F, 'a', 0x01, 0x00, 0xFF}, 600).ok());  // length runs off the end
  EXPECT_FALSE(Decode({0x50, 'h', 'e', 'l', 'l', 'o'}, 4).ok());  // more than stated
  EXPECT_FALSE(Decode({0x50, 'h', 'e', 'l', 'l', 'o'}, 6).ok());  // less than stated
}

}  // namespace
}  // namespace archpatch::binary
