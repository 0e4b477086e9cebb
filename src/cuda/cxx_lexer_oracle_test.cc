// cuda::Tokenize against libclang's tokens (the lexer it replaced), token for token: kind, begin,
// end. Every pass over C++ (directives, runtime checks, hazards, plans) was written and measured
// against libclang's tokens, so any difference is a change of behaviour.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "cuda/clang_lexer_oracle.h"
#include "cuda/real_trees_test_util.h"
#include "cuda/tokens.h"

namespace archpatch::cuda {
namespace {

std::string Describe(std::string_view text, const std::vector<Token>& tokens, size_t i) {
  if (i >= tokens.size()) return "(none)";
  const Token& t = tokens[i];
  return fmt::format("kind {} [{}, {}) `{}`", static_cast<int>(t.kind), t.begin, t.end,
                     text.substr(t.begin, std::min<size_t>(t.end - t.begin, 60)));
}

// The first token where the two lexers differ, or "" when they agree.
std::string FirstDifference(std::string_view text) {
  static ClangLexerOracle oracle;
  const std::vector<Token> want = oracle.Tokenize(text);
  const std::vector<Token> got = Tokenize(text);
  for (size_t i = 0; i < std::max(want.size(), got.size()); ++i) {
    const bool same = i < want.size() && i < got.size() && want[i].kind == got[i].kind &&
                      want[i].begin == got[i].begin && want[i].end == got[i].end;
    if (!same) {
      return fmt::format("token {}: libclang {}, ours {}", i, Describe(text, want, i), Describe(text, got, i));
    }
  }
  return "";
}

TEST(CxxLexer, AgreesWithLibclangOnWhatCudaSourcesHold) {
  const char* const cases[] = {
      "#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 900) && (__CUDA_ARCH__ < 1200)\n#endif\n",
      "#  ifdef X // trailing\n#elif __CUDA_ARCH__ >= 1000 /* block */\n",
      "TVM_FFI_ICHECK_EQ(major, 10) << \"only sm_100\";\n",
      "template <class T> __global__ void k(T* p) { p[threadIdx.x] = T{}; }\n",
      "a<<<grid, block, 0, stream>>>(x); a >>= 2; a <<= 1; b <=> c; x->*y; x.*y; f(...);\n",
      "std::vector<std::vector<int>> v; a<::b> c; a<:::b; a<::>; <% %> %: %:%: <: :>\n",
      "int x = 1'000'000; double d = 1e+10, e = 0x1p-3, f = .5e-2f; auto g = 0xe+1; 12_km; 1.2.3\n",
      "auto s = u8\"a\" u\"b\" U\"c\" L\"d\" R\"(raw \" )\" )\" LR\"x(y)x\" u8R\"(z)\" uR\"(q)\" UR\"(r)\";\n",
      "char a = 'x', b = u8'y', c = u'z', d = U'w', e = L'v', f = '\\'', g = '\\\\';\n",
      "auto t = \"abc\"s; auto u = \"abc\"sv; auto w = \"abc\"_x; auto y = \"%\"PRIu64; auto z = 'c'_u; 'c'x;\n",
      "#define LONG(a, b) \\\n  do { a; \\\n    b; } while (0)\n",
      "// line comment \\\n continued\nint after;\n",
      "// comment then spaces after the backslash \\   \nstill comment\nint k;\n",
      "/* block */ /**/ /*/ not yet */ /* * / */ /* *\\\n/ escaped end\nint m;\n",
      "in\\\nt spliced_keyword; re\\\nturn x;\n",
      "x = \"unterminated\n y = 'q\n z = '';\n",
      "a $dollar b$c @at `tick` \\ back ? : ; , ~ ! != ^ ^= & && &= | || |= * *= / /= % %= + ++ += - -- -= -> = ==\n",
      "R\"delim(multi\nline)\" still)delim\" tail\n",
      "R\"bad delim\" after\n",
      "f\r\ng\rh\n\f\v\t i\n",
      "#pragma unroll\nfor (int i = 0; i < N; ++i) { acc += a[i] * b[i]; }\n",
      "namespace cute { struct SM90_64x8x16_F16F16F16_SS { using DRegisters = uint32_t[2]; }; }\n",
      "static_assert(sizeof(T) == 4, \"size\"); alignas(16) int q; constexpr auto z = nullptr; char8_t c8;\n",
      "and or not xor bitand bitor compl and_eq or_eq xor_eq not_eq __attribute__ __restrict __is_pod\n",
      "co_await co_yield co_return concept requires consteval constinit __forceinline __declspec typeof asm\n",
      "x = a ? b : c; y = (int)z; label: goto label; case 1: break; default: ;\n",
      "\\u00e9t\\u00e9 = 1; caf\\u00e9 = 2; \\u0041 = 3;\n",
      "int trailing_backslash_at_end = 1; \\",
      "// comment at the end without newline",
      "/* unterminated block comment",
      "R\"(unterminated raw string",
      "0x1.8p+1 1.0E-5L 077 0b1010 1ull 1'2'3 1'a 1' 2 .1 ..1 ...\n",
      "x\\\n+\\\n+ y\\\n-\\\n> z <\\\n< w\n",
      "#include <cuda/std/cstdint>\n#include \"flashinfer/utils.cuh\"\n",
  };
  for (const char* text : cases) EXPECT_EQ(FirstDifference(text), "") << "in:\n" << text;
  // Line splices before and inside a hex float, with control bytes and NUL around (fuzz_lexer).
  using std::string_view_literals::operator""sv;
  const std::string_view controls[] = {
      "#if (ARCH__Q(major, h \x10\x00 \\\n0x1p-3  a<: 0a"sv,
      "a \\\n0x1p-3 b 0\\\nx1p+3 c 0x\\\n1p-3 d \\\n1p-3 e \\\n0\\\nX1P-3"sv,
      "h \x10\x00 x \x00\\\ny \x7f z"sv,
  };
  for (const std::string_view text : controls) EXPECT_EQ(FirstDifference(text), "") << "in:\n" << text;
}

TEST(CxxLexer, AgreesWithLibclangOnNonAsciiTextInCommentsStringsAndNames) {
  const char* const cases[] = {
      "// \u00e9t\u00e9 \u2014 \u4e2d\u6587 \xF0\x9F\x98\x80\nint x; /* \u2264 */\n",
      "const char* s = \"\u00b5s \u2192 \u4e2d\"; char c = '\u00e9';\n",
      "int caf\u00e9 = 1; int \u00e9t\u00e9 = 2; int \u4e2d\u6587 = 3; x\u00a0= y;\n",
      "x = a \u00d7 b; y = \xF0\x9F\x98\x80; \xEF\xBB\xBFz;\n",
      "bad \xff\xfe utf8 \xc3 trailing \xe2\x82 x\n",
      "int a\u0301b = 1;\n",
  };
  for (const char* text : cases) EXPECT_EQ(FirstDifference(text), "") << "in:\n" << text;
}

// Every word clang's token table names: keyword or identifier, as libclang says.
TEST(CxxLexer, ClassifiesEveryWordOfClangsTokenTableAsLibclangDoes) {
  const char* def = "/usr/lib/llvm-19/include/clang/Basic/TokenKinds.def";
  std::ifstream in(def);
  if (!in) GTEST_SKIP() << def << " is absent (libclang-19-dev)";
  std::stringstream words;
  std::string line;
  while (std::getline(in, line)) {
    for (char& c : line) {
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) c = ' ';
    }
    words << line << '\n';
  }
  EXPECT_EQ(FirstDifference(words.str()), "");
}

// The real trees, when the evaluation's environment names them: every C/C++/CUDA file.
TEST(CxxLexer, AgreesWithLibclangOnEveryFileOfTheRealTrees) {
  const std::vector<std::string> roots = RealTreeRoots();
  if (roots.empty()) GTEST_SKIP() << kNoRealTrees;
  size_t files = 0;
  for (const std::string& root : roots) {
    files += ForEachCxxFile(root, [](const std::filesystem::path& path, const std::string& text) {
      EXPECT_EQ(FirstDifference(text), "") << path;
    });
  }
  RecordProperty("files", static_cast<int>(files));
  std::printf("compared %zu files\n", files);
}

}  // namespace
}  // namespace archpatch::cuda
