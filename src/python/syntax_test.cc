// SplitLines' scopes: which def/class names each logical line is inside, and that the lines of
// one scope share a single list of names rather than a copy each.
#include "python/syntax.h"

#include <gtest/gtest.h>

namespace archpatch::python {
namespace {

struct Split {
  TokenStream ts;
  std::vector<LogicalLine> lines;
};

Split SplitSource(std::string_view src) {
  Result<std::vector<Token>> tokens = Tokenize("x.py", src);
  EXPECT_TRUE(tokens.ok());
  Split out{MakeStream(src, tokens.ok() ? std::move(*tokens) : std::vector<Token>{}), {}};
  out.lines = SplitLines(out.ts);
  return out;
}

std::vector<std::string> ScopeNames(const Split& s) {
  std::vector<std::string> out;
  for (const LogicalLine& line : s.lines) out.push_back(ScopeName(line.scope));
  return out;
}

TEST(PythonSplitLines, EachLineIsInItsEnclosingDefsAndClasses) {
  const Split s = SplitSource(
      "x = 1\n"
      "class Runner:\n"
      "    @staticmethod\n"
      "    def run(a=1):\n"
      "        y = 2\n"
      "        def inner():\n"
      "            return 3\n"
      "        z = 4\n"
      "    w = 5\n"
      "v = 6\n");
  EXPECT_EQ(ScopeNames(s),
            (std::vector<std::string>{"", "Runner", "Runner.run", "Runner.run", "Runner.run", "Runner.run.inner",
                                      "Runner.run.inner", "Runner.run", "Runner", ""}));
  EXPECT_TRUE(s.lines.front().scope.empty());
  EXPECT_EQ(s.lines[3].scope.size(), 2u);
  EXPECT_EQ(s.lines[3].scope.front(), "Runner");
}

TEST(PythonSplitLines, LinesOfOneScopeShareItsNames) {
  const Split s = SplitSource(
      "def f():\n"
      "    a = 1\n"
      "    b = 2\n"
      "def g():\n"
      "    c = 3\n");
  ASSERT_EQ(s.lines.size(), 5u);
  EXPECT_EQ(&s.lines[0].scope.names(), &s.lines[1].scope.names());
  EXPECT_EQ(&s.lines[1].scope.names(), &s.lines[2].scope.names());
  EXPECT_NE(&s.lines[2].scope.names(), &s.lines[3].scope.names());
  EXPECT_EQ(s.lines[1].scope, s.lines[2].scope);
  EXPECT_NE(s.lines[2].scope, s.lines[4].scope);
}

TEST(PythonSplitLines, EqualNamesMakeEqualScopesWhereverTheyComeFrom) {
  EXPECT_EQ(Scope({"A", "f"}), Scope({"A", "f"}));
  EXPECT_EQ(Scope(), Scope(std::vector<std::string>{}));
  EXPECT_NE(Scope({"A"}), Scope());
  EXPECT_TRUE(Scope().names().empty());
}

// The tokenizer's bracket pairs must be the ones MakeStream finds from the tokens alone.
TEST(PythonMakeStream, TheTokenizersBracketPairsAreTheStreamsOwn) {
  const std::string_view src =
      "x = f(a[1], {'k': (2, 3)}, f'{y[0]}')\n"
      "def g(\n    a=[(1,\n 2)],\n):\n    return {i: [j for j in ()] for i in []}\n";
  Result<Tokenized> matched = TokenizeMatched("x.py", src);
  Result<std::vector<Token>> tokens = Tokenize("x.py", src);
  ASSERT_TRUE(matched.ok() && tokens.ok());
  const TokenStream from_tokens = MakeStream(src, std::move(*tokens));
  EXPECT_EQ(matched->match, from_tokens.match);
  EXPECT_EQ(MakeStream(src, std::move(*matched)).match, from_tokens.match);
}

// Folded copies a single-spaced line as it is and folds the rest: line breaks, tabs, form feeds
// and runs of spaces between tokens become one space (none inside brackets across a break).
TEST(PythonFolded, OnlyTextAlreadyFoldedIsCopiedAsItIs) {
  auto folded = [](std::string_view src) {
    Result<std::vector<Token>> tokens = Tokenize("x.py", src);
    EXPECT_TRUE(tokens.ok());
    const TokenStream ts = MakeStream(src, tokens.ok() ? std::move(*tokens) : std::vector<Token>{});
    return ts.Folded(0, ts.tokens.size() - 2);  // without NEWLINE and END
  };
  EXPECT_EQ(folded("f(a, 'x  y')\n"), "f(a, 'x  y')");  // two spaces inside a string are kept
  EXPECT_EQ(folded("x  = 1\n"), "x = 1");
  EXPECT_EQ(folded("x =\t1\n"), "x = 1");
  EXPECT_EQ(folded("x =\f1\n"), "x = 1");
  EXPECT_EQ(folded("x = f(\n    a,\n    b)\n"), "x = f(a, b)");
  EXPECT_EQ(folded("x = a \\\n    + b\n"), "x = a + b");
}

}  // namespace
}  // namespace archpatch::python
