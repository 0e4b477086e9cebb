// Branch look-ups by offset (InnermostBranch, SurvivesAt) answer what a scan of every branch would,
// and the per-file indexes of ParsedSource (directive mask, line index, skipped ranges) agree with
// the bytes, so the checks that use them stay exact while doing work per gate, not per file.
#include "hazard/branches.h"

#include <gtest/gtest.h>

#include "hazard/source.h"

namespace archpatch::hazard {
namespace {

// The innermost branch holding `offset` by looking at every branch (what the index replaces).
int InnermostByScan(const std::vector<Branch>& branches, size_t offset) {
  int found = -1;
  for (size_t i = 0; i < branches.size(); ++i) {
    const Branch& b = branches[i];
    if (offset >= b.body_begin && offset < b.body_end && (found < 0 || b.body_begin >= branches[found].body_begin)) {
      found = static_cast<int>(i);
    }
  }
  return found;
}

const std::string kNested =
    "int top;\n"
    "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900\n"
    "int a;\n"
    "#  ifdef X\n"
    "int b;\n"
    "#    if __CUDA_ARCH__ == 1000\n"
    "int c;\n"
    "#    endif\n"
    "int d;\n"
    "#  elif __CUDA_ARCH__ >= 1200\n"
    "int e;\n"
    "#  else\n"
    "#  endif\n"
    "int f;\n"
    "#elif defined(__CUDA_ARCH__)\n"
    "int g;\n"
    "#else\n"
    "int h;\n"
    "#endif\n"
    "int bottom;\n"
    "#if 1\n"
    "#endif\n";

TEST(Branches, InnermostBranchAgreesWithAScanOfEveryBranchAtEveryOffset) {
  const ParsedSource source = LexSource(kNested);
  const std::vector<arch::Arch> arches = {*arch::ParseArch("sm_90"), *arch::ParseArch("sm_120")};
  const std::vector<Branch> branches = FindBranches(kNested, source.tokens, arches, {});
  ASSERT_EQ(branches.size(), 8u);
  for (size_t offset = 0; offset <= kNested.size(); ++offset) {
    ASSERT_EQ(InnermostBranch(branches, offset), InnermostByScan(branches, offset)) << "offset " << offset;
  }
  EXPECT_EQ(InnermostBranch(branches, kNested.find("int c")), 2);
  EXPECT_EQ(InnermostBranch(branches, kNested.find("int top")), -1);
  EXPECT_EQ(InnermostBranch(branches, kNested.find("int bottom")), -1);
  // `int e` is under `#elif >= 1200` of `#ifdef X` inside >= 900: never on sm_90, and on sm_120
  // only if X (unknown here) is not defined.
  const std::vector<Tri> e = SurvivesAt(branches, kNested.find("int e"), arches.size());
  EXPECT_EQ(e, (std::vector<Tri>{Tri::kFalse, Tri::kUnknown}));
  EXPECT_EQ(SurvivesAt(branches, 0, 2), (std::vector<Tri>{Tri::kTrue, Tri::kTrue}));
}

TEST(Branches, SourceIndexesMarkDirectiveTokensAndLines) {
  const std::string text = "#define F(x) \\\n  (x + 1)\nint y = F(2);\n";
  const ParsedSource source = LexSource(text);
  ASSERT_EQ(source.on_directive.size(), source.tokens.size());
  for (size_t i = 0; i < source.tokens.size(); ++i) {
    const bool on_line_3 = source.lines.Line(source.tokens[i].begin) == 3;
    EXPECT_EQ(source.on_directive[i], !on_line_3) << source.Spelling(source.tokens[i]);
  }
  EXPECT_EQ(source.macros.count("F"), 1u);
  EXPECT_EQ(source.lines.Column(text.find("y =")), 5);
}

TEST(Branches, SkippedRangesAreFoundByBinarySearch) {
  ParsedSource source;
  source.contents = "0123456789abcdef";
  source.skipped = {{2, 4}, {8, 12}};
  auto token = [](size_t b, size_t e) {
    return Token{Token::Kind::kIdentifier, static_cast<uint32_t>(b), static_cast<uint32_t>(e)};
  };
  EXPECT_TRUE(source.Skipped(token(2, 4)));
  EXPECT_TRUE(source.Skipped(token(9, 11)));
  EXPECT_FALSE(source.Skipped(token(4, 5)));
  EXPECT_FALSE(source.Skipped(token(11, 13)));  // runs past the range
  EXPECT_FALSE(source.Skipped(token(0, 1)));
}

}  // namespace
}  // namespace archpatch::hazard
