#include "util/identifier.h"

#include <cctype>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace archpatch {
namespace {

std::vector<std::string> Names(std::string_view text) {
  std::vector<std::string> out;
  ForEachIdentifier(text, [&](std::string_view name, size_t at) {
    out.push_back(std::string(name) + "@" + std::to_string(at));
    return false;
  });
  return out;
}

TEST(ForEachIdentifier, YieldsWholeNamesAndSkipsNumbersWhole) {
  EXPECT_EQ(Names("defined(__CUDA_ARCH__) && __CUDA_ARCH__>=1200"),
            (std::vector<std::string>{"defined@0", "__CUDA_ARCH__@8", "__CUDA_ARCH__@26"}));
  // "0x1f" and "12abc" are numbers to the preprocessor: no name inside them.
  EXPECT_EQ(Names("0x1f + 12abc - MY_X9"), (std::vector<std::string>{"MY_X9@15"}));
  EXPECT_TRUE(Names("1 + 2 == 3").empty());
}

TEST(ForEachIdentifier, StopsWhenTheVisitorSaysSo) {
  int seen = 0;
  ForEachIdentifier("a b c", [&](std::string_view, size_t) { return ++seen == 2; });
  EXPECT_EQ(seen, 2);
}

TEST(IsIdentifierChar, TakesAsciiLettersDigitsAndUnderscoreOfAllBytes) {
  // The byte table must agree with the C locale's classes for every byte, the high half included
  // (a UTF-8 byte is no identifier character here; `char` is signed on x86).
  for (int b = 0; b < 256; ++b) {
    const char c = static_cast<char>(b);
    const bool letter = b < 0x80 && (std::isalpha(b) || b == '_');
    EXPECT_EQ(IsIdentifierStart(c), letter) << b;
    EXPECT_EQ(IsIdentifierChar(c), letter || (b < 0x80 && std::isdigit(b))) << b;
  }
}

TEST(IsIdentifier, TakesOnlyAWholeName) {
  EXPECT_TRUE(IsIdentifier("ENABLE_SM90"));
  EXPECT_TRUE(IsIdentifier("_x"));
  for (const char* text : {"", "9x", "a-b", "a b", "é"}) EXPECT_FALSE(IsIdentifier(text)) << text;
}

}  // namespace
}  // namespace archpatch
