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
  const std::vector<Token> tokens = Tokenize(text);
  const std::vector<FunctionBody> bodies = FindFunctionBodies(tokens, text);
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

// With `scopes`, every place a rule's scope can name: operator(), methods of nested classes with
// their classes, lambdas under their function (named by their variable), conversion operators.
TEST(Functions, ScopesNameOperatorsNestedClassesAndLambdas) {
  const std::string text =
      "template <class Mainloop>\n"
      "struct GemmKernel : public Base<Mainloop> {\n"
      "  struct Params { int n; };\n"
      "  CUTLASS_DEVICE void operator()(Params const& params, char* smem) {\n"
      "    int in_call;\n"
      "  }\n"
      "  struct Inner {\n"
      "    static void run() noexcept { int in_inner; }\n"
      "    explicit operator bool() const { return true; }\n"
      "  };\n"
      "};\n"
      "void launch(int n) {\n"
      "  auto pick = [&](int i) mutable { int in_pick; return i; };\n"
      "  for_each(n, [=] __device__ (int j) { int in_anon; });\n"
      "  int table[2] = {1, 2};\n"
      "}\n"
      "auto sum(int a) -> int { return a; }\n"
      "enum class Kind { kA, kB };\n"
      "bool Gemm::operator==(const Gemm& o) const { return true; }\n";
  const std::vector<Token> tokens = Tokenize(text);
  const std::vector<FunctionBody> bodies = FindFunctionBodies(tokens, text, /*scopes=*/true);
  auto scope_of = [&](const char* marker) { return EnclosingFunction(bodies, text.find(marker)); };
  EXPECT_EQ(scope_of("int in_call"), "GemmKernel::operator()");
  EXPECT_EQ(scope_of("int in_inner"), "GemmKernel::Inner::run");
  EXPECT_EQ(scope_of("return true; }\n  };"), "GemmKernel::Inner::operator bool");
  EXPECT_EQ(scope_of("int in_pick"), "launch::pick");
  EXPECT_EQ(scope_of("int in_anon"), "launch::lambda");
  EXPECT_EQ(scope_of("int table"), "launch");  // an initialiser is no lambda
  EXPECT_EQ(scope_of("return a"), "sum");      // trailing return type
  EXPECT_EQ(scope_of("kA"), "");
  EXPECT_EQ(scope_of("return true; }\n"), "GemmKernel::Inner::operator bool");
  EXPECT_EQ(EnclosingFunction(bodies, text.rfind("return true")), "Gemm::operator==");
  for (size_t offset = 0; offset <= text.size(); ++offset) {
    ASSERT_EQ(EnclosingFunction(bodies, offset), ScopeByScan(bodies, offset)) << "offset " << offset;
  }
  // Without `scopes`, as the hazard checks read code: lambdas belong to their function, no
  // operators, no class names.
  const std::vector<FunctionBody> plain = FindFunctionBodies(tokens, text);
  EXPECT_EQ(EnclosingFunction(plain, text.find("int in_pick")), "launch");
  EXPECT_EQ(EnclosingFunction(plain, text.find("int in_inner")), "run");
  EXPECT_EQ(EnclosingFunction(plain, text.find("int in_call")), "");
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

TEST(Functions, KernelsAndBodiesTogetherAreWhatEachGivesAlone) {
  // One filtering of the tokens serves both: a #define's braces and a commented-out kernel are
  // left out of both, as they are when each runs alone.
  const std::string text =
      "#define BODY { if (x) { y(); } }\n"
      "// __global__ void commented() {}\n"
      "__global__ void __launch_bounds__(128) kern(int* p) { p[0] = 1; }\n"
      "struct S { void run() const { auto f = [&](int i) { return i; }; } };\n";
  const std::vector<Token> tokens = Tokenize(text);
  for (bool scopes : {false, true}) {
    const FileFunctions both = FindKernelsAndBodies(tokens, text, scopes);
    const std::vector<KernelDecl> kernels = FindKernels(tokens, text);
    const std::vector<FunctionBody> bodies = FindFunctionBodies(tokens, text, scopes);
    ASSERT_EQ(both.kernels.size(), 1u);
    EXPECT_EQ(both.kernels[0].name, "kern");
    EXPECT_EQ(both.kernels[0].offset, kernels[0].offset);
    ASSERT_EQ(both.bodies.size(), bodies.size()) << scopes;
    for (size_t i = 0; i < bodies.size(); ++i) {
      EXPECT_EQ(both.bodies[i].name, bodies[i].name);
      EXPECT_EQ(both.bodies[i].begin, bodies[i].begin);
      EXPECT_EQ(both.bodies[i].end, bodies[i].end);
      EXPECT_EQ(both.bodies[i].parent, bodies[i].parent);
    }
  }
  EXPECT_EQ(FindKernelsAndBodies(tokens, text, true).bodies.size(), 3u);  // kern, S::run, S::run::f
}

TEST(Functions, AllFunctionsAreWhatEachViewGivesAlone) {
  // One walk over the braces gives the bodies with and without scopes: operators, lambdas and
  // classes read differently in each, and a lambda's body is its function's without scopes.
  const std::string text =
      "#define BODY { if (x) { y(); } }\n"
      "__global__ void kern(int* p) { auto g = [=] __device__ (int i) { return i; }; p[0] = g(1); }\n"
      "struct S {\n"
      "  bool operator()(int i) const { return i > 0; }\n"
      "  explicit operator bool() const { return true; }\n"
      "  S& operator=(const S& o) { struct L { void m() {} }; return *this; }\n"
      "  void run() const { auto f = [&](int i) { if (i) { helper(i); } return i; }; }\n"
      "};\n"
      "void S::Inner::go() { []() { void (*p)() = nullptr; }(); }\n";
  const std::vector<Token> tokens = Tokenize(text);
  const AllFunctions all = FindAllFunctions(tokens, text);
  const auto same = [](const std::vector<FunctionBody>& got, const std::vector<FunctionBody>& want) {
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
      EXPECT_EQ(got[i].name, want[i].name);
      EXPECT_EQ(got[i].begin, want[i].begin);
      EXPECT_EQ(got[i].end, want[i].end);
      EXPECT_EQ(got[i].parent, want[i].parent) << want[i].name;
    }
  };
  same(all.scoped, FindFunctionBodies(tokens, text, /*scopes=*/true));
  same(all.plain, FindFunctionBodies(tokens, text, /*scopes=*/false));
  EXPECT_NE(all.scoped.size(), all.plain.size());
  ASSERT_EQ(all.kernels.size(), 1u);
  EXPECT_EQ(all.kernels[0].name, "kern");
}

}  // namespace
}  // namespace archpatch::cuda
