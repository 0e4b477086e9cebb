// Pieces lexed apart and joined give the file's tokens: where a piece starts inside a comment, a
// string, a raw string or a spliced line too, and on every C/C++ file of the real trees.
#include "cuda/token_pieces.h"

#include <gtest/gtest.h>

#include <string>

#include "cuda/real_trees_test_util.h"

namespace archpatch::cuda {
namespace {

// The tokens, one per line, for readable failures.
std::string Spelled(const std::vector<Token>& tokens, std::string_view text) {
  std::string out;
  for (const Token& t : tokens) {
    out += std::to_string(t.begin) + "-" + std::to_string(t.end) + " " + std::to_string(static_cast<int>(t.kind)) +
           " " + std::string(t.Spelling(text)) + "\n";
  }
  return out;
}

std::vector<Token> InPieces(std::string_view text, size_t count) {
  std::vector<TokenPiece> pieces;
  for (size_t k = 0; k < count; ++k) pieces.push_back(LexPiece(text, k, count));
  return JoinPieces(text, std::move(pieces));
}

// "" when the pieces, joined, are Tokenize's tokens for every count from 1 to `most`.
std::string Difference(std::string_view text, size_t most = 12) {
  const std::string want = Spelled(Tokenize(text), text);
  for (size_t count = 1; count <= most; ++count) {
    const std::string got = Spelled(InPieces(text, count), text);
    if (got != want) return "in " + std::to_string(count) + " pieces:\n" + got + "Tokenize:\n" + want;
  }
  return "";
}

TEST(TokenPieces, StartAtLineStarts) {
  const std::string text = "int a;\nint b;\nint c;\n";  // 21 bytes, lines at 0, 7, 14
  EXPECT_EQ(PieceStart(text, 0, 3), 0u);
  EXPECT_EQ(PieceStart(text, 1, 3), 7u);  // byte 7 starts a line
  EXPECT_EQ(PieceStart(text, 2, 3), 14u);
  EXPECT_EQ(PieceStart(text, 1, 2), 14u);  // byte 10 is inside the second line
  EXPECT_EQ(PieceStart("no newline at all", 1, 2), 17u);
}

TEST(TokenPieces, JoinedAsTheFileIsLexed) {
  for (const char* text :
       {"#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900\nint f() { return 1; }\n#endif\n", "", "\n\n\n\n"}) {
    EXPECT_EQ(Difference(text), "") << text;
  }
}

TEST(TokenPieces, PiecesThatStartInsideACommentAStringOrASplicedLine) {
  // Each piece boundary lands in a line that the file's tokens see as part of something longer.
  for (const char* text : {
           "int a; /* one\n int b = 1;\n#if X\n int c;\n*/ int d;\n",
           "auto s = R\"x(\n#if 0\nint a;\n\" ) \n)x\";\nint b;\n",
           "#define LONG(a) \\\n  a + \\\n  a * \\\n  a\nint x = LONG(2);\n",
           "const char* s = \"a\\\nb\\\nc\";\nint ident\\\nifier;\n",
           "// a comment \\\n continued \\\n again\nint a;\n",
       }) {
    EXPECT_EQ(Difference(text), "") << text;
  }
}

TEST(TokenPieces, AFileWhoseTokensEndEarly) {
  // An unterminated block comment or raw string ends the tokens; pieces after it must add none.
  for (const char* text :
       {"int a;\n/* never closed\nint b;\nint c;\nint d;\n", "int a;\nauto s = R\"(never closed\nint b;\nint c;\n"}) {
    EXPECT_EQ(Difference(text), "") << text;
  }
}

TEST(TokenPieces, MorePiecesThanLines) {
  EXPECT_EQ(Difference("int a; int b; int c; int d; int e;", 40), "");
  EXPECT_EQ(Difference("a\nb\n", 40), "");
}

TEST(TokenPieces, AgreeWithTheLexerOnEveryFileOfTheRealTrees) {
  const std::vector<std::string> roots = RealTreeRoots();
  if (roots.empty()) GTEST_SKIP() << kNoRealTrees;
  size_t files = 0;
  for (const std::string& root : roots) {
    files += ForEachCxxFile(root, [&](const std::filesystem::path& path, const std::string& text) {
      const std::vector<Token> want = Tokenize(text);
      for (const size_t count : {2, 5, 8}) {
        const std::vector<Token> got = InPieces(text, count);
        const bool same =
            got.size() == want.size() && std::equal(got.begin(), got.end(), want.begin(), [](auto& a, auto& b) {
              return a.kind == b.kind && a.begin == b.begin && a.end == b.end;
            });
        ASSERT_TRUE(same) << path << " in " << count << " pieces";
      }
    });
  }
  EXPECT_GT(files, 0u);
}

}  // namespace
}  // namespace archpatch::cuda
