#include "python/tokenizer.h"

#include <gtest/gtest.h>

namespace archpatch::python {
namespace {

struct Lexed {
  std::vector<std::string> texts;
  std::vector<TokenKind> kinds;
  std::vector<Token> tokens;
};

Lexed Lex(std::string_view src) {
  Result<std::vector<Token>> r = Tokenize("t.py", src);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().str());
  Lexed out;
  if (!r.ok()) return out;
  for (const Token& t : *r) {
    out.tokens.push_back(t);
    out.kinds.push_back(t.kind);
    if (t.kind != TokenKind::kNewline && t.kind != TokenKind::kIndent && t.kind != TokenKind::kDedent &&
        t.kind != TokenKind::kEnd) {
      out.texts.emplace_back(TokenText(src, t));
    }
  }
  return out;
}

std::string ErrorOf(std::string_view src) {
  Result<std::vector<Token>> r = Tokenize("t.py", src);
  return r.ok() ? "" : r.error().str();
}

using V = std::vector<std::string>;

// The byte runs (names, blanks, comments, string bodies) are read four bytes to a bounds check:
// a run must end right whatever its length and wherever the file ends.
TEST(Tokenizer, RunsEndRightAtEveryLengthAndAtTheEndOfTheFile) {
  for (size_t n = 1; n <= 9; ++n) {
    const std::string name(n, 'a'), body(n, 'b');
    EXPECT_EQ(Lex(name).texts, (V{name})) << n;
    EXPECT_EQ(Lex(name + "+" + name + "\n").texts, (V{name, "+", name})) << n;
    EXPECT_EQ(Lex("x" + std::string(n, ' ') + "=1\n").texts, (V{"x", "=", "1"})) << n;
    EXPECT_EQ(Lex("x # " + body).texts, (V{"x"})) << n;
    EXPECT_EQ(Lex("s = '" + body + "'").texts, (V{"s", "=", "'" + body + "'"})) << n;
    EXPECT_EQ(ErrorOf("s = '" + body), "t.py:1:5: unterminated string literal") << n;
  }
}

TEST(Tokenizer, CommentsProduceNoTokens) {
  EXPECT_EQ(Lex("x = 1  # major >= 10\n# supported_major_versions=[9]\n").texts, (V{"x", "=", "1"}));
}

TEST(Tokenizer, EveryStringPrefixInAnyCase) {
  const Lexed l = Lex("a = (r'x', B\"y\", Rb'z', bR\"w\", U'u', f'{a}', rF\"{b}\", t'{c}')\n");
  EXPECT_EQ(l.texts, (V{"a", "=", "(", "r'x'", ",", "B\"y\"", ",", "Rb'z'", ",", "bR\"w\"", ",", "U'u'", ",", "f'{a}'",
                        ",", "rF\"{b}\"", ",", "t'{c}'", ")"}));
  EXPECT_TRUE(l.tokens[13].fstring);
  EXPECT_FALSE(l.tokens[5].fstring);
}

TEST(Tokenizer, ANameThatIsNoPrefixStaysAName) {
  EXPECT_EQ(Lex("br = rb\nfr = 1\n").texts, (V{"br", "=", "rb", "fr", "=", "1"}));
}

TEST(Tokenizer, EscapedQuotesAndRawStrings) {
  EXPECT_EQ(Lex(R"(a = "x \" y" + r"\"" + '\\')"
                "\n")
                .texts,
            (V{"a", "=", R"("x \" y")", "+", R"(r"\"")", "+", R"('\\')"}));
}

TEST(Tokenizer, TripleQuotedStringsSpanLines) {
  const Lexed l = Lex("s = '''a\n'' still\nend'''\nx = 1\n");
  EXPECT_EQ(l.texts[2], "'''a\n'' still\nend'''");
  EXPECT_EQ(l.tokens.back().line, 5);  // the end marker after line 4
}

TEST(Tokenizer, FStringsWithNestedFieldsQuotesAndFormatSpecs) {
  EXPECT_EQ(Lex("s = f\"{x['k']!r:>{w}} {{literal}} {f'{y}'}\"\n").texts.size(), 3u);
  // Python 3.12 (PEP 701): the same quote nested inside a replacement field.
  EXPECT_EQ(Lex("s = f\"{f\"{\"deep\"}\"}\" + 'next'\n").texts, (V{"s", "=", "f\"{f\"{\"deep\"}\"}\"", "+", "'next'"}));
  EXPECT_EQ(Lex("s = f'{a!=b}'\n").texts.size(), 3u);
  EXPECT_EQ(Lex("s = f'''{\n  x\n}'''\n").texts.size(), 3u);
}

// Found by tokenizing every .py under /root/.pyenv and the Cloud SDK (pygments, idlelib, pyparsing).
TEST(Tokenizer, BackslashesDoNotEscapeFStringBraces) {
  EXPECT_EQ(Lex("k = rf\"Software\\Python\\{ver}\" + fr'\\{c}{{}}'\n").texts.size(), 5u);
  EXPECT_EQ(Lex("s = f'\\N{DASH} {x}'\n").texts.size(), 3u);  // \N{...} names a character
  EXPECT_EQ(Lex("s = f'''{\n  x  # it's a comment\n}'''\n").texts.size(), 3u);
}

TEST(Tokenizer, IndentAndDedentFollowTheOffsideRule) {
  const Lexed l = Lex("def f():\n    if x:\n        y = 1\n\n    # note\n    return y\nz = 2\n");
  const auto count = [&](TokenKind k) { return std::count(l.kinds.begin(), l.kinds.end(), k); };
  EXPECT_EQ(count(TokenKind::kIndent), 2);
  EXPECT_EQ(count(TokenKind::kDedent), 2);
  EXPECT_EQ(count(TokenKind::kNewline), 5);
}

TEST(Tokenizer, TabsCountToTheNextMultipleOfEight) {
  const Lexed l = Lex("if x:\n\ty = 1\n\tz = 2\n");
  EXPECT_EQ(std::count(l.kinds.begin(), l.kinds.end(), TokenKind::kIndent), 1);
}

TEST(Tokenizer, ContinuationsJoinLines) {
  const Lexed l = Lex("x = [1,\n  2] + \\\n  3\ny = (\n)\n");
  EXPECT_EQ(std::count(l.kinds.begin(), l.kinds.end(), TokenKind::kNewline), 2);
  EXPECT_EQ(std::count(l.kinds.begin(), l.kinds.end(), TokenKind::kIndent), 0);
}

TEST(Tokenizer, CrlfAndCrLineEndings) {
  const Lexed crlf = Lex("x = 1\r\nif x:\r\n    y = 2\r\n");
  EXPECT_EQ(crlf.tokens[4].line, 2);
  const Lexed cr = Lex("x = 1\rif x:\r    y = 2\r");
  EXPECT_EQ(cr.tokens[4].line, 2);
  EXPECT_EQ(cr.texts, crlf.texts);
}

TEST(Tokenizer, ByteOrderMarkKeepsFileOffsetsAndColumnOne) {
  const std::string src = "\xEF\xBB\xBFmajor = 9\n";
  const Lexed l = Lex(src);
  EXPECT_EQ(l.tokens[0].begin, 3u);
  EXPECT_EQ(l.tokens[0].column, 1);
  EXPECT_EQ(TokenText(src, l.tokens[2]), "9");
}

TEST(Tokenizer, NonAsciiIdentifiers) {
  EXPECT_EQ(Lex("größe = μ + 名前\n").texts, (V{"größe", "=", "μ", "+", "名前"}));
}

TEST(Tokenizer, NumbersInEveryForm) {
  EXPECT_EQ(Lex("a = 1_000 + 0x_FF + 0o17 + 0b1 + 1.5e-3 + .5 + 3j + 1E5 + 10.\n").texts,
            (V{"a", "=", "1_000", "+", "0x_FF", "+", "0o17", "+", "0b1", "+", "1.5e-3", "+", ".5", "+", "3j", "+",
               "1E5", "+", "10."}));
}

TEST(Tokenizer, OperatorsTakeTheLongestMatch) {
  EXPECT_EQ(Lex("a **= b // c != d >= e -> f := g ...\n").texts,
            (V{"a", "**=", "b", "//", "c", "!=", "d", ">=", "e", "->", "f", ":=", "g", "..."}));
}

TEST(Tokenizer, ErrorsSayWhereAndWhat) {
  EXPECT_EQ(ErrorOf("x = 'abc\n"), "t.py:1:5: unterminated string literal");
  EXPECT_EQ(ErrorOf("x = 1\ny = \"\"\"abc\n"), "t.py:2:5: unterminated triple-quoted string literal");
  EXPECT_EQ(ErrorOf("f(]\n"), "t.py:1:3: closing parenthesis ']' does not match opening parenthesis '('");
  EXPECT_EQ(ErrorOf("x)\n"), "t.py:1:2: unmatched ')'");
  EXPECT_EQ(ErrorOf("x = \\ y\n"), "t.py:1:5: unexpected character after line continuation character");
  // PEP 701: a quote inside a field opens a nested string, so this one never ends.
  EXPECT_EQ(ErrorOf("x = f'{a'\n"), "t.py:1:9: unterminated string literal");
  EXPECT_EQ(ErrorOf("x = f'{a:>3'\n"), "t.py:1:7: f-string: expecting '}'");
  EXPECT_EQ(ErrorOf("x = f'a}'\n"), "t.py:1:8: f-string: single '}' is not allowed");
  EXPECT_EQ(ErrorOf(std::string("x = 1\0\n", 7)), "t.py:1:6: source code cannot contain null bytes");
}

TEST(Tokenizer, PathologicalNestingIsRefusedNotOverflowed) {
  EXPECT_EQ(ErrorOf(std::string(300, '(') + std::string(300, ')') + "\n"), "t.py:1:201: too many nested parentheses");
  std::string fstr = "x = ";
  for (int i = 0; i < 40; ++i) fstr += "f'{";
  EXPECT_NE(ErrorOf(fstr).find("f-string: expressions nested too deeply"), std::string::npos);
}

TEST(Tokenizer, StringBodyStripsPrefixAndQuotes) {
  EXPECT_EQ(StringBody("rb'sm_90a'"), "sm_90a");
  EXPECT_EQ(StringBody("\"\"\"9.0a\"\"\""), "9.0a");
  EXPECT_EQ(StringBody("''"), "");
}

}  // namespace
}  // namespace archpatch::python
