// Which files an audit reads of a tree: the folders right under a PATH are walked on all cores,
// and what the walk keeps or leaves out must not depend on how deep a folder sits.
#include "scan/walk.h"

#include <algorithm>
#include <filesystem>

#include <unistd.h>

#include <gtest/gtest.h>

#include "env/test_tree.h"

namespace archpatch::scan {
namespace {

namespace fs = std::filesystem;
using env::testing::TempTree;

// The same kinds of entries at the top of the PATH and two folders down.
void WriteLevel(const TempTree& tree, const std::string& at) {
  tree.Write(at + "mod.py", "x = 1\n");
  tree.Write(at + "kernel.cu", "__global__ void k() {}\n");
  tree.Write(at + "notes.txt", "not source\n");
  tree.Write(at + "test_mod.py", "assert True\n");
  tree.Write(at + "setup.py", "setup()\n");
  tree.Write(at + "build/gen.py", "x = 2\n");
  tree.Write(at + "__pycache__/mod.py", "x = 3\n");
  tree.Write(at + "tests/t.py", "x = 4\n");
  tree.Write(at + "real/inner.h", "int x;\n");
  fs::create_directory_symlink(tree.root() / (at + "real"), tree.root() / (at + "linked"));
}

std::vector<std::string> Relative(const TempTree& tree, const FileList& list) {
  std::vector<std::string> out;
  for (const std::string& f : list.files) out.push_back(fs::path(f).lexically_relative(tree.root()).string());
  return out;
}

// The files of a tree holding one level at its root and one two folders down.
Result<FileList> CollectTwoLevels(const TempTree& tree, const WalkOptions& options) {
  WriteLevel(tree, "");
  WriteLevel(tree, "pkg/sub/");
  return CollectFiles({tree.root().string()}, options);
}

TEST(CollectFiles, KeepsAndSkipsTheSameAtEveryDepth) {
  TempTree tree;
  WalkOptions options;
  options.skip_setup_py = true;
  Result<FileList> list = CollectTwoLevels(tree, options);
  ASSERT_TRUE(list) << list.error().str();
  EXPECT_EQ(Relative(tree, *list),
            (std::vector<std::string>{"kernel.cu", "mod.py", "pkg/sub/kernel.cu", "pkg/sub/mod.py",
                                      "pkg/sub/real/inner.h", "real/inner.h"}));
  EXPECT_TRUE(list->warnings.empty());
}

TEST(CollectFiles, KeepTestsEntersTestFoldersAtEveryDepth) {
  TempTree tree;
  WalkOptions options;
  options.keep_tests = true;
  Result<FileList> list = CollectTwoLevels(tree, options);
  ASSERT_TRUE(list);
  const std::vector<std::string> files = Relative(tree, *list);
  for (const char* kept : {"tests/t.py", "pkg/sub/tests/t.py", "test_mod.py", "pkg/sub/setup.py"}) {
    EXPECT_NE(std::find(files.begin(), files.end(), kept), files.end()) << kept;
  }
  for (const char* skipped :
       {"build/gen.py", "pkg/sub/__pycache__/mod.py", "linked/inner.h", "pkg/sub/linked/inner.h"}) {
    EXPECT_EQ(std::find(files.begin(), files.end(), skipped), files.end()) << skipped;
  }
}

// Entries are looked at without following a link, then a link to a source file is read as that
// file: a symlinked module is audited, a dangling link or one to a folder (named like a module)
// is not, and a PATH given with a trailing slash joins its files' paths as std::filesystem does.
TEST(CollectFiles, TakesALinkToASourceFileOnly) {
  TempTree tree;
  tree.Write("real/mod.py", "x = 1\n");
  tree.Write("real/sub/k.cu", "int k;\n");
  fs::create_symlink(tree.root() / "real/mod.py", tree.root() / "alias.py");
  fs::create_symlink(tree.root() / "missing.py", tree.root() / "dangling.py");
  fs::create_directory_symlink(tree.root() / "real/sub", tree.root() / "folder.py");
  Result<FileList> list = CollectFiles({tree.root().string() + "/"});
  ASSERT_TRUE(list) << list.error().str();
  EXPECT_EQ(Relative(tree, *list), (std::vector<std::string>{"alias.py", "real/mod.py", "real/sub/k.cu"}));
  EXPECT_EQ(list->files.front(), tree.root().string() + "/alias.py");
  EXPECT_EQ(list->sizes.front(), 6u);
}

// A folder the walk cannot list is a warning naming it, and the rest of the tree is still walked.
// (root lists any folder: there is nothing to test then.)
TEST(CollectFiles, AFolderItCannotListIsAWarningNamingIt) {
  if (::geteuid() == 0) GTEST_SKIP() << "root reads a folder whatever its mode";
  TempTree tree;
  tree.Write("open/mod.py", "x = 1\n");
  tree.Write("closed/hidden.py", "x = 2\n");
  fs::permissions(tree.root() / "closed", fs::perms::none);
  Result<FileList> list = CollectFiles({tree.root().string()});
  fs::permissions(tree.root() / "closed", fs::perms::owner_all);
  ASSERT_TRUE(list) << list.error().str();
  EXPECT_EQ(Relative(tree, *list), (std::vector<std::string>{"open/mod.py"}));
  ASSERT_EQ(list->warnings.size(), 1u);
  EXPECT_EQ(list->warnings[0].where.file, (tree.root() / "closed").string());
  EXPECT_EQ(list->warnings[0].message, "cannot read directory: Permission denied");
}

// The rounds of an audit take the largest files first by the sizes the walk noted: each size must
// stay with its file through the sort of the walk's parts, and a PATH naming a file has one too.
TEST(CollectFiles, EachFileKeepsItsSize) {
  TempTree tree;
  WriteLevel(tree, "");
  WriteLevel(tree, "pkg/sub/");
  tree.Write("pkg/big.cuh", std::string(5000, 'x') + "\n");
  tree.Write("a/b/c/mid.py", std::string(700, '#') + "\n");
  const fs::path named = tree.root() / "named.cu";
  tree.Write("named.cu", "int y;\n");
  Result<FileList> list = CollectFiles({tree.root().string(), named.string()});
  ASSERT_TRUE(list) << list.error().str();
  ASSERT_EQ(list->sizes.size(), list->files.size());
  for (size_t i = 0; i < list->files.size(); ++i) {
    EXPECT_EQ(list->sizes[i], fs::file_size(list->files[i])) << list->files[i];
  }
  EXPECT_EQ(list->files.back(), named.string());
}

// Folders found while others are listed wake the threads that wait for one: a tree that fans out
// and narrows again (most folders end at once, a few hold more) is listed whole every time; a
// lost wake-up would leave folders unlisted or the walk waiting forever.
TEST(CollectFiles, AWideAndDeepTreeIsListedWholeEveryTime) {
  TempTree tree;
  size_t written = 0;
  for (int a = 0; a < 8; ++a) {
    for (int b = 0; b < 6; ++b) {
      const std::string at = "p" + std::to_string(a) + "/q" + std::to_string(b) + "/";
      tree.Write(at + "m.py", "x = 1\n"), ++written;
      if (b == 0) tree.Write(at + "deep/er/still/k.cu", "int k;\n"), ++written;
    }
  }
  for (int run = 0; run < 20; ++run) {
    Result<FileList> list = CollectFiles({tree.root().string()});
    ASSERT_TRUE(list) << list.error().str();
    ASSERT_EQ(list->files.size(), written) << "run " << run;
  }
}

// Each PATH's files in path order, whichever thread listed them, and the PATHs in the order given
// (the report's order, and its sameness from run to run, rest on it).
TEST(CollectFiles, EachPathsFilesComeInPathOrderAndThePathsAsGiven) {
  TempTree tree;
  for (int a = 0; a < 12; ++a) {
    for (const char* name : {"z.py", "a.cu", "m/k.h", "m.h", "m-x/y.py"})
      tree.Write("late/p" + std::to_string(a) + "/" + name, "x = 1\n");
  }
  tree.Write("early/only.py", "x = 1\n");
  for (int run = 0; run < 10; ++run) {
    Result<FileList> list = CollectFiles({(tree.root() / "late").string(), (tree.root() / "early").string()});
    ASSERT_TRUE(list) << list.error().str();
    ASSERT_EQ(list->files.size(), 61u);
    EXPECT_EQ(list->files.back(), (tree.root() / "early" / "only.py").string());
    EXPECT_TRUE(std::is_sorted(list->files.begin(), list->files.end() - 1)) << "run " << run;
    for (size_t i = 0; i < list->files.size(); ++i) EXPECT_EQ(list->sizes[i], fs::file_size(list->files[i]));
  }
}

}  // namespace
}  // namespace archpatch::scan
