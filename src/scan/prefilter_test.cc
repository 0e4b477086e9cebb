// The prefilter may only save work: with and without it, the scanners report the same gates over
// every fixture and over a generated tree (bench/gen_tree.py, small).
#include "scan/prefilter.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include <gtest/gtest.h>

#include "cuda/real_trees_test_util.h"
#include "cuda/runtime_gates.h"
#include "cuda/tokens.h"
#include "scan/audit.h"
#include "scan/scan.h"
#include "report/finding.h"

namespace archpatch::scan {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> Keys(const AuditReport& report) {
  std::vector<std::string> keys;
  for (const Finding& f : report.findings) keys.push_back(ToJson(f).dump());
  return keys;
}

void ExpectSameWithAndWithout(const std::vector<std::string>& paths, const char* target) {
  AuditOptions options;
  options.target = *arch::ParseArch(target);
  options.paths = paths;
  options.env.undef_unknown = false;
  options.prefilter = false;
  Result<AuditReport> full = Audit(options);
  options.prefilter = true;
  Result<AuditReport> filtered = Audit(options);
  ASSERT_TRUE(full.ok() && filtered.ok());
  EXPECT_EQ(Keys(*full), Keys(*filtered)) << "target " << target;
  EXPECT_LE(filtered->files_parsed, full->files_parsed);
}

TEST(Prefilter, DropsNothingOverTheFixtures) {
  const std::string fixtures = std::string(ARCHPATCH_SOURCE_DIR) + "/tests/fixtures/cuda";
  for (const char* target : {"sm_120", "sm_90", "sm_80", "sm_100a"}) ExpectSameWithAndWithout({fixtures}, target);
}

TEST(Prefilter, DropsNothingOverAGeneratedTree) {
  fs::path tree = fs::temp_directory_path() / ("archpatch_prefilter_" + std::to_string(getpid()));
  std::string cmd = "python3 " + std::string(ARCHPATCH_SOURCE_DIR) + "/bench/gen_tree.py " + tree.string() +
                    " --files 120 --megabytes 1 >/dev/null";
  if (std::system(cmd.c_str()) != 0) GTEST_SKIP() << "python3 could not run bench/gen_tree.py";
  ExpectSameWithAndWithout({tree.string()}, "sm_120");
  ExpectSameWithAndWithout({tree.string()}, "sm_80");
  fs::remove_all(tree);
}

TEST(Prefilter, ChoosesOnlyTheAnalysesThatCanMatch) {
  Prefilter p(cuda::MacroEnv{});
  cuda::GateKinds plain = p.Check("__global__ void k(float* smem) { smem[0] = 1; }\n");
  EXPECT_FALSE(plain.directives || plain.nv_target || plain.runtime);
  cuda::GateKinds gate = p.Check("#if __CUDA_ARCH__ >= 900\n#endif\n");
  EXPECT_TRUE(gate.directives);
  EXPECT_FALSE(gate.runtime);
  EXPECT_TRUE(p.Check("NV_IF_TARGET(NV_PROVIDES_SM_90, (x();));").nv_target);
  EXPECT_TRUE(p.Check("if (major < 9) return false;").runtime);
  EXPECT_FALSE(p.Check("using cutlass::arch::Sm90;").runtime) << "a namespace qualifier is no capability";
}

// A file lexed ahead is checked in its first read only until its directives are needed: the
// kinds found by then are Check's, and `complete` says whether the others were looked for.
TEST(Prefilter, CheckingDirectivesFirstStopsAtTheFirstArchName) {
  Prefilter p(cuda::MacroEnv{});
  const std::string late =
      "#if __CUDA_ARCH__ >= 900\n#endif\nvoid f() { if (major < 9) return; }\n"
      "void g() { NV_IF_TARGET(NV_IS_DEVICE, (h();)); }\n";
  bool complete = true;
  cuda::GateKinds first = p.CheckDirectivesFirst(late, complete);
  EXPECT_TRUE(first.directives);
  EXPECT_FALSE(complete) << "the runtime check and NV_IF_TARGET come after __CUDA_ARCH__";
  EXPECT_FALSE(first.runtime || first.nv_target);
  const cuda::GateKinds all = p.Check(late);
  EXPECT_TRUE(all.directives && all.runtime && all.nv_target);

  const std::string none = "void f() { if (major < 9) return; }\n";  // no arch name: read to its end
  first = p.CheckDirectivesFirst(none, complete);
  EXPECT_TRUE(complete);
  EXPECT_FALSE(first.directives);
  EXPECT_TRUE(first.runtime);

  const std::string early = "void f() { if (major < 9) NV_IF_TARGET(NV_IS_DEVICE, (h();)); }\n";
  first = p.CheckDirectivesFirst(early, complete);
  EXPECT_TRUE(complete) << "every kind was found by the first arch name";
  EXPECT_TRUE(first.directives && first.runtime && first.nv_target);
}

TEST(Prefilter, NamesInLeadingCommentsIncludePathsAndNamespacesNeedNoAnalysis) {
  Prefilter p(cuda::MacroEnv{});
  const std::string skipped =
      "/*\n * Output layout (K-major), needs __CUDA_ARCH__ >= 900\n */\n"
      "#include <cutlass/arch/mma.h>\n"
      "  /// Operand A - Column-major; NV_IF_TARGET(NV_PROVIDES_SM_90, ...)\n"
      "namespace arch {}\n";
  cuda::GateKinds none = p.Check(skipped);
  EXPECT_FALSE(none.directives || none.nv_target || none.runtime);
  // What follows a comment on its line is still read.
  EXPECT_TRUE(p.Check("/* doc */ int major = prop.major;\n").runtime);
  // A `//` line that closes a block comment: code may follow the `*/`.
  EXPECT_TRUE(p.Check("/* a\n// b */ if (major < 9) return;\n").runtime);
  // A line spliced to the one before (here inside a string) is no line start.
  EXPECT_TRUE(p.Check("const char* s = \"a\\\n// major\";\n").runtime);
  // A raw string may hold comment-like lines: such a file is read whole.
  EXPECT_TRUE(p.Check("auto s = R\"(\n// )\" ; int major = 9;\n").runtime);
  EXPECT_TRUE(p.Check("auto q = \"x\"; auto s = LR\"(\n// )\" ; int major = 9;\n").runtime);
  // Without one, quotes alone do not: the comment line is skipped.
  EXPECT_FALSE(p.Check("auto q = \"x\"; auto s = \"(\";\n// int major = 9;\n").runtime);
  EXPECT_TRUE(p.Check(skipped + "#if __CUDA_ARCH__ >= 900\n#endif\n").directives);
}

TEST(Prefilter, AQualifiedTypeBeforeADeclaredNameIsNoCapability) {
  Prefilter p(cuda::MacroEnv{});
  // CUTLASS's `GMMA::Major tnspA` parameters: a type, as cuda::MayBeValue reads it.
  EXPECT_FALSE(p.Check("template <GMMA::Major tnspA,\n          GMMA::Major\ntnspB>\n").runtime);
  // A value after `::` stays one: before an operator, a keyword, a comment or a splice.
  EXPECT_TRUE(p.Check("if (props::major >= 9) return;").runtime);
  EXPECT_TRUE(p.Check("bool b = ::major and x;").runtime);
  EXPECT_TRUE(p.Check("f(a::major /* why */ x);").runtime);
  EXPECT_TRUE(p.Check("x = a::major \\\ny;").runtime);
  // `:::` and `%::` end in `:` as the lexer reads them: no scope operator before the name.
  EXPECT_TRUE(p.Check("x = c ? a :::major y;").runtime);
  EXPECT_TRUE(p.Check("x %::major y;").runtime);
}

TEST(Prefilter, StringsAndCommentsAfterCodeNeedNoAnalysis) {
  Prefilter p(cuda::MacroEnv{});
  // CUTLASS's static_assert messages and `// M major` notes: most of its capability words.
  EXPECT_FALSE(p.Check("static_assert(x, \"A must be K major\"); // M major\n").runtime);
  EXPECT_FALSE(p.Check("s = \"a\\\"major\\\"\"; // \"arch\"\n").runtime) << "escaped quotes";
  // Where a quote or a `//` may sit in a block comment or a character literal, the line is read.
  EXPECT_TRUE(p.Check("c = '\"'; int major = 9; s = \"x\";\n").runtime);
  EXPECT_TRUE(p.Check("s = \"a */ b\"; major = 1; t = \"c\";\n").runtime);
  EXPECT_TRUE(p.Check("/* \" */ major /* \" */\n").runtime);
  EXPECT_TRUE(p.Check("x; /* a // b */ if (major < 9) return;\n").runtime);
  EXPECT_TRUE(p.Check("x = \"unterminated; // major\n").runtime);
  EXPECT_FALSE(p.Check("c = '/'/2; // major\n").runtime) << "a `//` after a character is a comment";
  // A literal continued past its line: the rest of the file is read whole.
  EXPECT_TRUE(p.Check("s = \"ab\\\ncd\"; major = 1; t = \"x\";\n").runtime);
  EXPECT_TRUE(p.Check("s = \"ab\\\ncd\"; y;\nint z; // major\n").runtime);
}

// The runtime analysis may be skipped only where the token reader finds no capability value: on
// every C/C++ file of the fixtures and of the real trees the evaluation's environment names.
size_t ExpectRuntimeWhereTheTokensNameAValue(const fs::path& root) {
  Prefilter p(cuda::MacroEnv{});
  size_t files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file() || KindOf(entry.path().string()) != FileKind::kCuda) continue;
    std::ifstream in(entry.path(), std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), {});
    ++files;
    if (cuda::NamesCapabilityValue(cuda::Tokenize(text), text)) EXPECT_TRUE(p.Check(text).runtime) << entry.path();
  }
  return files;
}

TEST(Prefilter, LeavesTheRuntimeAnalysisWhereverTheTokensNameAValue) {
  EXPECT_GT(ExpectRuntimeWhereTheTokensNameAValue(fs::path(ARCHPATCH_SOURCE_DIR) / "tests/fixtures"), 0u);
  const std::vector<std::string> roots = cuda::RealTreeRoots();
  for (const std::string& root : roots) EXPECT_GT(ExpectRuntimeWhereTheTokensNameAValue(root), 0u) << root;
  if (roots.empty()) GTEST_SKIP() << cuda::kNoRealTrees;
}

TEST(Prefilter, ADefineNamingAnArchMacroIsSearchedFor) {
  cuda::MacroEnv env;
  env.defines["MY_ARCH"] = "__CUDA_ARCH__";
  EXPECT_TRUE(Prefilter(env).Check("#if MY_ARCH >= 900\n#endif\n").directives);
  EXPECT_FALSE(Prefilter(cuda::MacroEnv{}).Check("#if MY_ARCH >= 900\n#endif\n").directives);
}

}  // namespace
}  // namespace archpatch::scan
