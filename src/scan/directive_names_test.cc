// A later round skips a file only when DirectiveNames says none of its directives can name a
// package macro: every name the lexer finds in a directive must be kept.
#include "scan/directive_names.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "cuda/directives.h"
#include "cuda/real_trees_test_util.h"
#include "cuda/tokens.h"
#include "util/identifier.h"

namespace archpatch::scan {
namespace {

namespace fs = std::filesystem;

bool Mentions(std::string_view text, const std::string& name) { return DirectiveNames::Of(text).MayMention({name}); }

TEST(DirectiveNames, KeepsTheNamesOfEveryDirectiveForm) {
  EXPECT_TRUE(Mentions("#if defined(PKG_SM90_ENABLED)\n#endif\n", "PKG_SM90_ENABLED"));
  EXPECT_TRUE(Mentions("  #  ifdef PKG_A\n#endif\n", "PKG_A"));
  EXPECT_TRUE(Mentions("#define PKG_ALIAS PKG_B\n", "PKG_B"));
  EXPECT_TRUE(Mentions("%:if PKG_DIGRAPH\n%:endif\n", "PKG_DIGRAPH"));
  EXPECT_TRUE(Mentions("%\\\n:if PKG_SPLIT_DIGRAPH\n", "PKG_SPLIT_DIGRAPH"));
  EXPECT_TRUE(Mentions("int r = a % b % c;\n%:if PKG_AFTER_MODULO\n", "PKG_AFTER_MODULO"));
  EXPECT_FALSE(Mentions("int r = a % PKG_NO_DIGRAPH;\n", "PKG_NO_DIGRAPH")) << "a `%` that starts no directive";
  EXPECT_TRUE(Mentions("#if 1 && \\\n    PKG_CONTINUED\n#endif\n", "PKG_CONTINUED"));
  EXPECT_TRUE(Mentions("#\\\nif PKG_SPLICED_KEYWORD\n#endif\n", "PKG_SPLICED_KEYWORD"));
  EXPECT_TRUE(Mentions("#if 1 /* a comment\n that ends */ && PKG_AFTER_COMMENT\n#endif\n", "PKG_AFTER_COMMENT"));
  EXPECT_TRUE(Mentions("/* doc */ #if PKG_AFTER_LEADING_COMMENT\n#endif\n", "PKG_AFTER_LEADING_COMMENT"));
}

TEST(DirectiveNames, JoinsANameSplitBySplicesAsTheLexerDoes) {
  EXPECT_TRUE(Mentions("#if PKG_\\\nSPLIT\n#endif\n", "PKG_SPLIT"));
  EXPECT_TRUE(Mentions("#if PKG_\\  \t\nBLANKS\n#endif\n", "PKG_BLANKS")) << "blanks after the backslash";
  EXPECT_TRUE(Mentions("#if PKG_\\\r\nCRLF\r\n#endif\r\n", "PKG_CRLF"));
  EXPECT_TRUE(Mentions("#if PKG_\\\n\\\nTWICE\n#endif\n", "PKG_TWICE")) << "two splices in a row";
  EXPECT_TRUE(Mentions("#if A \\\n && PKG_\\\nLAST \\\n\n", "PKG_LAST")) << "a splice ends the region";
  EXPECT_TRUE(Mentions("#if PKG_\\\n\rCR_AFTER_LF\n", "PKG_CR_AFTER_LF")) << "\\n\\r is one line break";
  EXPECT_FALSE(Mentions("#if PKG_\\ x\nNOT\n#endif\n", "PKG_NOT")) << "a backslash before a byte splices nothing";
}

TEST(DirectiveNames, SaysWhetherAnyDirectiveMayDefineAMacro) {
  EXPECT_FALSE(DirectiveNames::Of("#if defined(PKG_A)\nint define = 1;\n#endif\n").MayDefine())
      << "`define` outside a directive defines nothing";
  EXPECT_TRUE(DirectiveNames::Of("#define PKG_A 1\n").MayDefine());
  EXPECT_TRUE(DirectiveNames::Of("#if X\n  #  define PKG_A\n#endif\n").MayDefine());
  EXPECT_TRUE(DirectiveNames::Of("%:define PKG_A\n").MayDefine()) << "the digraph";
  EXPECT_TRUE(DirectiveNames::Of("#def\\\nine PKG_A\n").MayDefine()) << "a splice inside `define`";
  EXPECT_TRUE(DirectiveNames().MayDefine()) << "a file never read may define anything";
}

// The prefix a package-macro read lexes: through the last line that may #define or #undef.
TEST(DirectiveNames, DefinitionsEndAfterTheLastDefineOrUndef) {
  const std::string head = "#pragma once\n#if defined(__CUDA_ARCH__)\n#  define PKG_A\n#endif\n";
  const std::string tail = "#if defined(PKG_A)\nint a;\n#else\nint b;\n#endif\n";
  EXPECT_EQ(DirectiveNames::Of(head + tail).DefinitionsEnd(), head.size() - std::string("#endif\n").size());
  const std::string undef = "#undef PKG_A\n";
  EXPECT_EQ(DirectiveNames::Of(head + undef + tail).DefinitionsEnd(), head.size() + undef.size());
  const std::string continued = "#define PKG_B \\\n  1\n";
  EXPECT_EQ(DirectiveNames::Of(continued + tail).DefinitionsEnd(), continued.size()) << "its continuation too";
  EXPECT_EQ(DirectiveNames::Of(tail).DefinitionsEnd(), 0u) << "nothing defined";
  EXPECT_EQ(DirectiveNames::Of("#define PKG_C").DefinitionsEnd(), 13u) << "no newline at the end";
  EXPECT_EQ(DirectiveNames().DefinitionsEnd(), std::string_view::npos) << "a file never read: all of it";
}

TEST(DirectiveNames, NamesOutsideDirectivesNeedNoRead) {
  const std::string code = "int f() { return PKG_IN_CODE; }\n// PKG_IN_COMMENT\n#if X\n#endif\n";
  EXPECT_FALSE(Mentions(code, "PKG_IN_CODE"));
  EXPECT_FALSE(Mentions(code, "PKG_IN_COMMENT"));
  EXPECT_TRUE(Mentions(code, "X"));
  EXPECT_TRUE(DirectiveNames().MayMention({"ANYTHING"})) << "a file never read may mention anything";
}

// The file's prefix through DefinitionsEnd, read alone, gives the whole file's #define and #undef
// directives, each in the same branch of the same chains: the definitions a package-macro read
// takes from it are the whole file's.
void ExpectPrefixHoldsTheDefinitions(const fs::path& path, const std::string& text, const DirectiveNames& kept,
                                     const cuda::DirectiveScan& scan) {
  const std::string_view prefix(text.data(), std::min(text.size(), kept.DefinitionsEnd()));
  const cuda::DirectiveScan head = cuda::ReadDirectives(cuda::Tokenize(prefix), prefix, path.string());
  ASSERT_EQ(head.macros.size(), scan.macros.size()) << path;
  for (size_t i = 0; i < scan.macros.size(); ++i) {
    const cuda::MacroDirective &a = head.macros[i], &b = scan.macros[i];
    EXPECT_TRUE(a.name == b.name && a.define == b.define && a.replacement == b.replacement && a.branch == b.branch &&
                a.offset == b.offset && a.function_like == b.function_like)
        << path << ": " << b.name;
    for (int up = b.branch; up >= 0; up = scan.branches[up].parent) {
      for (int at = up; at >= 0; at = scan.branches[at].previous) {
        ASSERT_LT(static_cast<size_t>(at), head.branches.size()) << path;
        const cuda::DirectiveBranch &x = head.branches[at], &y = scan.branches[at];
        EXPECT_TRUE(x.kind == y.kind && x.condition == y.condition && x.parent == y.parent && x.previous == y.previous)
            << path << ": line " << y.line;
      }
    }
  }
}

// Every name the lexer-based reader sees in a file's directives, by file.
void ExpectKeepsWhatTheLexerReads(const fs::path& root) {
  size_t files = 0, names = 0;
  for (const auto& entry : fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied)) {
    const std::string ext = entry.path().extension().string();
    if (!entry.is_regular_file() || entry.is_symlink() ||
        (ext != ".h" && ext != ".hpp" && ext != ".cuh" && ext != ".cu" && ext != ".cc" && ext != ".cpp")) {
      continue;
    }
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream buffer;
    buffer << in.rdbuf();
    const std::string text = buffer.str();
    const DirectiveNames kept = DirectiveNames::Of(text);
    const cuda::DirectiveScan scan = cuda::ReadDirectives(cuda::Tokenize(text), text, entry.path().string());
    auto expect = [&](std::string_view in_directive) {
      ForEachIdentifier(in_directive, [&](std::string_view name, size_t) {
        ++names;
        EXPECT_TRUE(kept.MayMention({std::string(name)})) << entry.path() << ": " << name;
        return false;
      });
    };
    for (const cuda::DirectiveBranch& b : scan.branches) expect(b.condition);
    for (const cuda::MacroDirective& m : scan.macros) expect(m.name), expect(m.replacement);
    const bool defines = std::any_of(scan.macros.begin(), scan.macros.end(), [](const auto& m) { return m.define; });
    if (defines) {
      EXPECT_TRUE(kept.MayDefine()) << entry.path() << ": the lexer reads a #define";
    }
    ExpectPrefixHoldsTheDefinitions(entry.path(), text, kept, scan);
    ++files;
  }
  EXPECT_GT(files, 0u) << root;
  EXPECT_GT(names, 0u) << root;
}

TEST(DirectiveNames, KeepsEveryNameTheLexerReadsInTheFixtures) {
  ExpectKeepsWhatTheLexerReads(fs::path(ARCHPATCH_SOURCE_DIR) / "tests/fixtures");
}

TEST(DirectiveNames, KeepsEveryNameTheLexerReadsInTheRealTrees) {
  const std::vector<std::string> roots = cuda::RealTreeRoots();
  if (roots.empty()) GTEST_SKIP() << cuda::kNoRealTrees;
  for (const std::string& root : roots) ExpectKeepsWhatTheLexerReads(root);
}

}  // namespace
}  // namespace archpatch::scan
