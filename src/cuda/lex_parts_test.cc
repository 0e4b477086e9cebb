// A file lexed in parts and joined gives Tokenize's tokens, wherever the parts begin: in code, in
// a block comment, in a literal, in a raw string, after a splice.
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "cuda/real_trees_test_util.h"
#include "cuda/tokens.h"

namespace archpatch::cuda {
namespace {

std::string Spelled(const std::vector<Token>& tokens, std::string_view text) {
  std::string out;
  for (const Token& t : tokens) {
    out += std::to_string(t.begin) + ":" + std::to_string(static_cast<int>(t.kind)) + ":" +
           std::string(t.Spelling(text)) + "\n";
  }
  return out;
}

void ExpectSameInParts(const std::string& text, size_t most_parts = 9) {
  const std::string whole = Spelled(Tokenize(text), text);
  for (size_t parts = 2; parts <= most_parts; ++parts) {
    ASSERT_EQ(Spelled(TokenizeInParts(text, parts), text), whole) << parts << " parts of:\n" << text;
  }
}

TEST(LexParts, JoinsPartsThatBeginInsideCommentsLiteralsAndSplices) {
  ExpectSameInParts("int a;\n/* one\ntwo\nthree\nfour */ int b;\nint c;\n");
  ExpectSameInParts("auto s = R\"x(\nline\n)\"\nline\n)x\";\nint d;\n");
  ExpectSameInParts("#define M(a) \\\n  a + \\\n  a\nint e = M(1);\n");
  ExpectSameInParts("const char* s = \"abc\\\ndef\\\nghi\";\nint f;\n");
  ExpectSameInParts("// a comment \\\n continued\n// and another\nint g;\n");
  ExpectSameInParts("x = '\n'; y = \"\n\"; z;\n");  // literals a line break ends
  ExpectSameInParts("int h; /* never closed\nint i;\nint j;\n");
  ExpectSameInParts("");
  ExpectSameInParts("no newline at all, one part");
}

// Lines of fragments that open and close comments, literals and raw strings, splice lines and
// nest them, joined at random.
std::string RandomSource(std::mt19937& rng) {
  static const std::vector<std::string> kPieces = {
      "/*", "*/", "//", "\"", "'",  "\\\n", "R\"(", ")\"", "R\"d(", ")d\"", "int", "x1", "42", "1'000", "u8\"",
      "#",  "##", " ",  "\t", "\n", "\n",   "\n",   "{",   "}",     "::",   ".",   "e+", "0x", "\r\n",  "\\"};
  std::uniform_int_distribution<size_t> pick(0, kPieces.size() - 1), length(1, 120);
  std::string text;
  for (size_t n = length(rng); n > 0; --n) text += kPieces[pick(rng)];
  return text;
}

TEST(LexParts, JoinsRandomSourceAsTheWholeLexerReadsIt) {
  std::mt19937 rng(2026);
  for (int sample = 0; sample < 1000; ++sample) ExpectSameInParts(RandomSource(rng), 6);
}

TEST(LexParts, GivesTheWholeLexersTokensOnEveryFileOfTheRealTrees) {
  const std::vector<std::string> roots = RealTreeRoots();
  if (roots.empty()) GTEST_SKIP() << kNoRealTrees;
  size_t files = 0;
  for (const std::string& root : roots) {
    files += ForEachCxxFile(root, [&](const std::filesystem::path& path, const std::string& text) {
      const std::vector<Token> whole = Tokenize(text), joined = TokenizeInParts(text, 4);
      ASSERT_EQ(whole.size(), joined.size()) << path;
      for (size_t i = 0; i < whole.size(); ++i) {
        ASSERT_TRUE(whole[i].kind == joined[i].kind && whole[i].begin == joined[i].begin &&
                    whole[i].end == joined[i].end)
            << path << " token " << i;
      }
    });
  }
  EXPECT_GT(files, 100u);
}

}  // namespace
}  // namespace archpatch::cuda
