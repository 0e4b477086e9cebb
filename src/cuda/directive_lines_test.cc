// The skim's directive lines against the lexer's: the same tokens wherever the skim answers, and
// no answer where it cannot follow the lexer (the caller lexes those files whole).
#include "cuda/directive_lines.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "cuda/directives.h"
#include "cuda/real_trees_test_util.h"

namespace archpatch::cuda {
namespace {

// The spellings, one per line, for readable failures.
std::string Spelled(const std::vector<Token>& tokens, std::string_view text) {
  std::string out;
  for (const Token& t : tokens) out += std::to_string(t.begin) + ":" + std::string(t.Spelling(text)) + "\n";
  return out;
}

// "" when the skim answers as the lexer does, or does not answer; else both token lists.
std::string Difference(const std::string& text) {
  const std::optional<std::vector<Token>> skimmed = DirectiveLineTokens(text);
  if (!skimmed) return "";
  const std::string got = Spelled(*skimmed, text), want = Spelled(DirectiveLinesOf(Tokenize(text), text), text);
  return got == want ? "" : "skim:\n" + got + "lexer:\n" + want;
}

// The skim's directives, their tokens spelled with a space between: a line break between two
// tokens starts the next directive.
std::vector<std::string> Directives(const std::string& text) {
  std::vector<std::string> lines;
  const std::optional<std::vector<Token>> tokens = DirectiveLineTokens(text);
  EXPECT_TRUE(tokens) << text;
  if (!tokens) return lines;
  for (size_t i = 0; i < tokens->size(); ++i) {
    const Token& t = (*tokens)[i];
    if (i == 0 || HasLineBreak(std::string_view(text).substr((*tokens)[i - 1].end, t.begin - (*tokens)[i - 1].end))) {
      lines.emplace_back(t.Spelling(text));
    } else {
      lines.back() += " " + std::string(t.Spelling(text));
    }
  }
  return lines;
}

TEST(DirectiveLines, FindsTheDirectivesOfPlainCode) {
  const std::string text =
      "#include \"a.h\"\n"
      "int f() { return 1; }\n"
      "  #if __CUDA_ARCH__ >= 900 // Hopper\n"
      "x = a / b;\n"
      "#else\n"
      "#endif\n";
  EXPECT_EQ(Directives(text), (std::vector<std::string>{"# include \"a.h\"", "# if __CUDA_ARCH__ >= 900 // Hopper",
                                                        "# else", "# endif"}));
  EXPECT_EQ(Difference(text), "");
}

TEST(DirectiveLines, PassesOverHashesInLiteralsAndComments) {
  const std::string text =
      "const char* s = \"\\n#if A\"; char c = '#';\n"
      "/* a comment\n"
      "#if B\n"
      "*/\n"
      "// #if C\n"
      "x = \"unterminated #if D\n"
      "#if E\n"
      "#endif\n";
  EXPECT_EQ(Directives(text), (std::vector<std::string>{"# if E", "# endif"}));
  EXPECT_EQ(Difference(text), "");
}

TEST(DirectiveLines, ReadsDirectivesAsTheChainBuilderDoes) {
  // A comment before `#` counts as a blank; a block comment after code does not end its line; a
  // `#` after code is no directive; a continuation and a comment spanning lines extend one.
  const std::string text =
      "/* lead */ #if A\n"
      "f(); /* spans\n"
      "lines */ #if B\n"
      "a # b;\n"
      "#define M(x) \\\n"
      "  (x) + #x\n"
      "#if C /* one\n"
      " comment */ && D\n"
      "## not one\n"
      "#endif\n";
  EXPECT_EQ(Directives(text), (std::vector<std::string>{"# if A", "# define M ( x ) ( x ) + # x",
                                                        "# if C /* one\n comment */ && D", "# endif"}));
  EXPECT_EQ(Difference(text), "");
}

TEST(DirectiveLines, AnswersNothingWhereTheLexerReadsOtherwise) {
  for (const std::string text : {
           "auto s = R\"(\n#if A\n)\";\n",        // a raw string
           "int n = 1'000;\n#if A\n#endif\n",     // a digit separator
           "auto c = u8'x';\n",                   // a prefixed character
           "x = 1; \\\n#if A\n#endif\n",          // a splice in code
           "// comment \\\n#if A\n#endif\n",      // a comment continued
           "s = \"a\\\n#if A\";\n",               // a literal continued
           "/* a *\\\n/ #if A\n#endif\n",         // a comment ended by a splice
           "int \xc3\xa9 = 1;\n#if A\n#endif\n",  // a name that is not ASCII
       }) {
    EXPECT_FALSE(DirectiveLineTokens(text)) << text;
  }
}

TEST(DirectiveLines, EndsWhereTheLexerEnds) {
  EXPECT_EQ(Difference("#if A\n/* never closed\n#endif\n"), "");
  EXPECT_EQ(Difference("#if A\n#endif"), "");
  EXPECT_EQ(Difference("#if A\n#endif\\"), "");
  EXPECT_EQ(Difference("#"), "");
  EXPECT_EQ(Difference("x = '';\n#if A\n#endif\n"), "");
  EXPECT_EQ(Difference("x = 'a\r#if A\r\n#endif\n"), "");
  EXPECT_EQ(Difference("// old\r#if A\n#endif\n"), "");
  EXPECT_EQ(Directives("#if A\n/* never closed\n#endif\n"), (std::vector<std::string>{"# if A"}));
}

// The skim passes over plain bytes sixteen at a time: each byte it must stop at, at every offset
// of a block (a literal holding `/*`, a comment, a splice, a NUL, UTF-8), is read as the lexer reads it.
TEST(DirectiveLines, StopsAtEachByteItMustReadWhereverItFallsInABlock) {
  for (const std::string& tail : std::vector<std::string>{
           "\"/*\";\n#if A\n#endif\n// */\n", "'/*';\n#if A\n#endif\n// */\n", "// #if C\n#if A\n#endif\n",
           "/* #if C */\n#if A\n#endif\n", "\\\n#if A\n#endif\n", std::string("x\0y;\n#if A\n#endif\n", 16),
           "\xc3\xa9;\n#if A\n#endif\n", "x;\n#if A\n#endif\n"}) {
    for (size_t pad = 0; pad < 40; ++pad) {
      const std::string text = "int " + std::string(pad, 'x') + " = " + tail;
      EXPECT_EQ(Difference(text), "") << pad << ": " << text;
    }
  }
  EXPECT_EQ(Directives("int " + std::string(13, 'x') + " = \"/*\";\n#if A\n#endif\n// */\n"),
            (std::vector<std::string>{"# if A", "# endif"}));
}

// Every C/C++/CUDA file of the real trees the evaluation's environment names: the same tokens,
// and an answer for most files (a skim that gave up everywhere would save nothing).
TEST(DirectiveLines, AgreesWithTheLexerOnEveryFileOfTheRealTrees) {
  const std::vector<std::string> roots = RealTreeRoots();
  if (roots.empty()) GTEST_SKIP() << kNoRealTrees;
  size_t files = 0, answered = 0;
  for (const std::string& root : roots) {
    files += ForEachCxxFile(root, [&](const std::filesystem::path& path, const std::string& text) {
      answered += DirectiveLineTokens(text).has_value();
      EXPECT_EQ(Difference(text), "") << path;
    });
  }
  std::printf("%zu of %zu files skimmed\n", answered, files);
  EXPECT_GT(answered * 10, files * 8);
}

}  // namespace
}  // namespace archpatch::cuda
