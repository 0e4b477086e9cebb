#include "env/glob.h"

#include <chrono>

#include <gtest/gtest.h>

#include "env/test_tree.h"

namespace archpatch::env {
namespace {

using testing::TempTree;
namespace fs = std::filesystem;

TEST(Glob, MatchesLikeFnmatchWithDoubleStar) {
  EXPECT_TRUE(GlobMatch("a/*.cuh", "a/x.cuh"));
  EXPECT_FALSE(GlobMatch("a/*.cuh", "a/b/x.cuh"));
  EXPECT_TRUE(GlobMatch("a/**/*.cuh", "a/x.cuh"));
  EXPECT_TRUE(GlobMatch("a/**/*.cuh", "a/b/c/x.cuh"));
  EXPECT_FALSE(GlobMatch("a/**/*.cuh", "ab/x.cuh"));
  EXPECT_TRUE(GlobMatch("**/*.py", "x.py"));
  EXPECT_TRUE(GlobMatch("**/*.py", "a/b/x.py"));
  EXPECT_TRUE(GlobMatch("a/**", "a/b/c"));
  EXPECT_TRUE(GlobMatch("a/?.py", "a/b.py"));
  EXPECT_FALSE(GlobMatch("a?b", "a/b"));
  EXPECT_FALSE(GlobMatch("a*b", "a/b"));
  EXPECT_TRUE(GlobMatch("a*", "a"));
  EXPECT_FALSE(GlobMatch("a", "ab"));
  EXPECT_TRUE(GlobMatch("", ""));
  // Found by fuzz_glob: "**/" matches no folder only as a whole, never by dropping its '/'
  // after "**" matched something.
  EXPECT_FALSE(GlobMatch("**//x", "d/x"));
  EXPECT_TRUE(GlobMatch("**//x", "d//x"));
  EXPECT_TRUE(GlobMatch("**//x", "/x"));
  EXPECT_TRUE(GlobMatch("a/**/", "a/"));
  EXPECT_TRUE(GlobMatch("a/**/", "a/b/"));
}

TEST(Glob, Classes) {
  EXPECT_TRUE(GlobMatch("x[0-9].h", "x7.h"));
  EXPECT_FALSE(GlobMatch("x[!0-9].h", "x7.h"));
  EXPECT_TRUE(GlobMatch("x[!0-9].h", "xa.h"));
  EXPECT_TRUE(GlobMatch("x[]].h", "x].h"));
  EXPECT_FALSE(GlobMatch("x[!a].h", "x/.h"));  // a class never matches '/'
  EXPECT_TRUE(GlobMatch("x[ab", "x[ab"));      // not closed: '[' is a character
}

// Patterns that took exponential time with the recursive matcher (issue 16, item 10): each must
// answer in milliseconds (the old matcher ran past 60 s on the first).
TEST(Glob, AdversarialPatternsAnswerInLinearTime) {
  const auto start = std::chrono::steady_clock::now();
  const std::string name = "minifi/" + std::string(60, 'a');
  EXPECT_FALSE(GlobMatch("minifi/*a*a*a*a*a*a*a*a*a*ab", name));
  std::string deep, twelve;
  for (int i = 0; i < 25; ++i) deep += "d/";
  for (int i = 0; i < 12; ++i) twelve += "**/";
  EXPECT_FALSE(GlobMatch(twelve + "x", deep + "y"));
  EXPECT_TRUE(GlobMatch(twelve + "y", deep + "y"));
  const std::string stars(2000, '*');
  EXPECT_FALSE(GlobMatch("*a" + stars + "b", std::string(3000, 'a')));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));  // milliseconds unloaded
}

TEST(Glob, RefusesOverlongPatterns) {
  EXPECT_FALSE(GlobMatch(std::string(kMaxGlobPatternBytes + 1, '*'), "x"));
  TempTree tree;
  Result<std::vector<std::string>> files = GlobInside(tree.root(), std::string(kMaxGlobPatternBytes + 1, '*'));
  ASSERT_FALSE(files);
  EXPECT_EQ(files.error().message, "pattern is longer than 4096 bytes");
}

TEST(Glob, ListsSortedFilesOnly) {
  TempTree tree;
  tree.Write("flashinfer/data/include/comm/b.cuh", "b\n");
  tree.Write("flashinfer/data/include/comm/a.cuh", "a\n");
  tree.Write("flashinfer/data/include/comm/a.h", "h\n");
  tree.Write(".archpatch/backup/flashinfer/data/include/comm/c.cuh", "c\n");
  Result<std::vector<std::string>> files = GlobInside(tree.root(), "flashinfer/data/include/comm/*.cuh");
  ASSERT_TRUE(files) << files.error().str();
  EXPECT_EQ(*files,
            (std::vector<std::string>{"flashinfer/data/include/comm/a.cuh", "flashinfer/data/include/comm/b.cuh"}));
  files = GlobInside(tree.root(), "**/*.cuh");
  ASSERT_TRUE(files);
  EXPECT_EQ(files->size(), 2u);
  files = GlobInside(tree.root(), "flashinfer/none.py");
  ASSERT_TRUE(files);
  EXPECT_TRUE(files->empty());
}

TEST(Glob, RefusesAMatchingSymlinkLeadingOut) {
  TempTree outside, tree;
  outside.Write("secret.py", "x\n");
  fs::create_directories(tree.root() / "pkg");
  fs::create_symlink(outside.root() / "secret.py", tree.root() / "pkg" / "file.py");
  EXPECT_FALSE(GlobInside(tree.root(), "pkg/*.py"));
}

TEST(Glob, RefusesAWalkDeeperThanTheBound) {
  TempTree tree;
  std::string deep = "pkg";
  for (int i = 0; i <= kMaxGlobWalkDepth; ++i) deep += "/d";
  tree.Write(deep + "/x.py", "x\n");
  Result<std::vector<std::string>> files = GlobInside(tree.root(), "pkg/**/*.py");
  ASSERT_FALSE(files);
  EXPECT_NE(files.error().message.find("folders deep under"), std::string::npos) << files.error().message;
  EXPECT_TRUE(GlobInside(tree.root(), "pkg/d/*.py"));  // a shallow pattern is fine
}

}  // namespace
}  // namespace archpatch::env
