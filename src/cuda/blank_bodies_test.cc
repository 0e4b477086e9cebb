// BlankBodies against what the preprocessor must still see: the same directive chains and
// macros at the same offsets, and nothing else of a blanked body.
#include "cuda/blank_bodies.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "cuda/directives.h"

namespace archpatch::cuda {
namespace {

using gate::ByteSpan;

// The body whose '{' is the first after `marker`, as FindFunctionBodies spans it.
ByteSpan BodyAfter(const std::string& text, const std::string& marker) {
  const size_t open = text.find('{', text.find(marker));
  int depth = 0;
  for (size_t i = open; i < text.size(); ++i) {
    if (text[i] == '{') ++depth;
    if (text[i] == '}' && --depth == 0) return {open, i + 1};
  }
  return {open, text.size()};
}

std::string Blank(const std::string& text, const std::vector<ByteSpan>& bodies) {
  return BlankBodies(text, Tokenize(text), bodies);
}

// What ReadDirectives reads of the file, offsets included.
std::string Chains(const std::string& text) {
  const DirectiveScan scan = ReadDirectives(Tokenize(text), text, "f.cu");
  std::string out;
  for (const DirectiveBranch& b : scan.branches) {
    out += fmt::format("{} '{}' {}-{} block {}-{} parent {}\n", DirectiveName(b.kind), b.condition,
                       b.directive_span.begin, b.directive_span.end, b.block.begin, b.block.end, b.parent);
  }
  for (const MacroDirective& m : scan.macros) {
    out += fmt::format("{} {} '{}' at {} in {}\n", m.define ? "define" : "undef", m.name, m.replacement, m.offset,
                       m.branch);
  }
  for (const Error& e : scan.problems) out += e.str() + "\n";
  return out;
}

TEST(BlankBodies, KeepsTheDirectiveLinesOfABodyAndBlanksItsCode) {
  const std::string text =
      "__device__ int Pick(int x) {\n"
      "#if (defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 900))\n"
      "  asm volatile(\"griddepcontrol.wait;\");\n"
      "#define STEP(a) \\\n"
      "    ((a) + 1)\n"
      "#elif /* a comment\n"
      "         over two lines */ defined(OLD)\n"
      "  x = STEP(x);\n"
      "#endif  // __CUDA_ARCH__\n"
      "  return x;\n"
      "}\n"
      "int after = 1;\n";
  const std::string blanked = Blank(text, {BodyAfter(text, "Pick")});
  ASSERT_EQ(blanked.size(), text.size());
  EXPECT_EQ(std::count(blanked.begin(), blanked.end(), '\n'), std::count(text.begin(), text.end(), '\n'));
  EXPECT_EQ(blanked.find("griddepcontrol"), std::string::npos);
  EXPECT_EQ(blanked.find("return x;"), std::string::npos);
  EXPECT_EQ(blanked.find("x = STEP(x);"), std::string::npos);
  EXPECT_NE(blanked.find("#define STEP(a) \\\n    ((a) + 1)\n"), std::string::npos);
  EXPECT_NE(blanked.find("over two lines */ defined(OLD)\n"), std::string::npos);
  EXPECT_NE(blanked.find("int Pick(int x) {"), std::string::npos);
  EXPECT_NE(blanked.find("}\nint after = 1;\n"), std::string::npos);
  EXPECT_EQ(Chains(blanked), Chains(text));
}

TEST(BlankBodies, ABranchThatClosesTheBodyKeepsItsPartner) {
  // The body's first '}' sits in the #if branch; the #else branch closes it again.
  const std::string text = "void Launch() {\n#if NEW_API\n  run_new();\n}\n#else\n  run_old();\n}\n#endif\nint tail;\n";
  const std::string blanked = Blank(text, {BodyAfter(text, "Launch")});
  EXPECT_EQ(blanked.find("run_new"), std::string::npos);
  EXPECT_NE(blanked.find("run_old"), std::string::npos);  // after the body: not blanked
  EXPECT_EQ(Chains(blanked), Chains(text));
}

TEST(BlankBodies, AHashThatStartsNoDirectiveKeepsTheBodyWhole) {
  const std::string text = "void f() {\n  x = 1; # if 0\n  y = 2;\n}\n";
  EXPECT_EQ(Blank(text, {BodyAfter(text, "f")}), text);
  // A `#` behind a comment that opens its line starts a directive: blanked around, kept.
  const std::string commented = "void g() {\n  /* c */ #if A\n  y = 2;\n  #endif\n}\n";
  const std::string blanked = Blank(commented, {BodyAfter(commented, "g")});
  EXPECT_EQ(blanked.find("y = 2"), std::string::npos);
  EXPECT_NE(blanked.find("#if A\n"), std::string::npos);
  EXPECT_EQ(Chains(blanked), Chains(commented));
}

TEST(BlankBodies, BodiesInsideABlankedOneAreSkippedAndOthersLeftAlone) {
  const std::string text = "void outer() {\n  auto l = []() { inner(); };\n}\nvoid kept() { keep(); }\n";
  const ByteSpan outer = BodyAfter(text, "outer");
  const ByteSpan lambda = BodyAfter(text, "[]()");
  const std::string blanked = Blank(text, {outer, lambda});
  EXPECT_EQ(blanked.find("inner"), std::string::npos);
  EXPECT_EQ(blanked.find("auto l"), std::string::npos);
  EXPECT_NE(blanked.find("void kept() { keep(); }"), std::string::npos);
  EXPECT_EQ(Blank(text, {}), text);
}

}  // namespace
}  // namespace archpatch::cuda
