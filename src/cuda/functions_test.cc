// Function bodies from tokens: nested bodies know their parent, so the scope of a gate is found by
// a binary search and a short walk, and it is the one a scan of every body would give.
#include "cuda/functions.h"

#include <gtest/gtest.h>

namespace archpatch::cuda {
namespace {

std::string ScopeByScan(const std::vector<FunctionBody>& bodies, size_t offset) {
  const FunctionBody* inner = nullptr;
  for (const FunctionBody& b : bodies) {
    if (b.begin <= offset && offset < b.end && (!inner || b.begin >= inner->begin)) inner = &b;
  }
  return inner ? inner->name : "";
}

TEST(Functions, EnclosingFunctionAgreesWithAScanOfEveryBodyAtEveryOffset) {
  const std::string text =
      "void outer(int n) {\n"
      "  struct Local { void method() { int m; } };\n"
      "  auto f = [](int x) { return x; };\n"
      "  if (n) { n++; }\n"
      "}\n"
      "int between;\n"
      "namespace ns { void Sm90::run() const { int r; } }\n"
      "void last() { { int inner; } }\n";
  Result<std::vector<Token>> tokens = ThreadLexer().Tokenize("t.cc", text);
  ASSERT_TRUE(tokens.ok());
  const std::vector<FunctionBody> bodies = FindFunctionBodies(*tokens, text);
  ASSERT_EQ(bodies.size(), 4u);
  EXPECT_EQ(bodies[1].name, "method");
  EXPECT_EQ(bodies[1].parent, 0);
  EXPECT_EQ(bodies[2].parent, -1);
  for (size_t offset = 0; offset <= text.size(); ++offset) {
    ASSERT_EQ(EnclosingFunction(bodies, offset), ScopeByScan(bodies, offset)) << "offset " << offset;
  }
  EXPECT_EQ(EnclosingFunction(bodies, text.find("int m")), "method");
  EXPECT_EQ(EnclosingFunction(bodies, text.find("return x")), "outer");  // a lambda is its function's
  EXPECT_EQ(EnclosingFunction(bodies, text.find("between")), "");
  EXPECT_EQ(EnclosingFunction(bodies, text.find("int r")), "Sm90::run");
}

TEST(LineIndex, LinesAndColumnsByBinarySearch) {
  const LineIndex empty;
  EXPECT_EQ(empty.Line(0), 1);
  EXPECT_EQ(empty.line_count(), 1);
  const std::string text = "ab\n\ncd\n";
  const LineIndex lines(text);
  EXPECT_EQ(lines.line_count(), 4);
  EXPECT_EQ(lines.Line(0), 1);
  EXPECT_EQ(lines.Line(2), 1);  // the newline belongs to its line
  EXPECT_EQ(lines.Line(3), 2);
  EXPECT_EQ(lines.Line(4), 3);
  EXPECT_EQ(lines.Column(5), 2);
  EXPECT_EQ(lines.LineStart(3), 4u);
  EXPECT_EQ(lines.Line(100), 4);  // past the end: the last line
}

}  // namespace
}  // namespace archpatch::cuda
