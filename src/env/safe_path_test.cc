#include "env/safe_path.h"

#include <gtest/gtest.h>

#include "env/glob.h"
#include "env/test_tree.h"

namespace archpatch::env {
namespace {

using testing::TempTree;
namespace fs = std::filesystem;

TEST(SafePath, RefusesAbsoluteAndDotDot) {
  TempTree tree;
  Result<fs::path> p = ResolveInside(tree.root(), "/etc/passwd");
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().message, "'/etc/passwd' is absolute; paths must be relative to site-packages");
  p = ResolveInside(tree.root(), "pkg/../../etc/passwd");
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().message, "'pkg/../../etc/passwd' contains '..'; paths must stay inside site-packages");
  EXPECT_FALSE(ResolveInside(tree.root(), ""));
}

TEST(SafePath, RefusesSymlinksLeadingOut) {
  TempTree outside, tree;
  outside.Write("secret.py", "x\n");
  fs::create_directories(tree.root() / "pkg");
  fs::create_directory_symlink(outside.root(), tree.root() / "pkg" / "link");
  Result<fs::path> p = ResolveInside(tree.root(), "pkg/link/secret.py");
  ASSERT_FALSE(p);
  EXPECT_NE(p.error().message.find("'pkg/link/secret.py': 'pkg/link' is a symlink"), std::string::npos)
      << p.error().message;
  fs::create_symlink(outside.root() / "secret.py", tree.root() / "pkg" / "file.py");
  EXPECT_FALSE(ResolveInside(tree.root(), "pkg/file.py"));
  Result<std::vector<std::string>> glob = GlobInside(tree.root(), "pkg/*.py");
  ASSERT_FALSE(glob);
}

// One policy for the planner and the store: a symlink below the root is refused even when it
// stays inside (apply refuses it anyway; planning through it only made the dry run disagree).
TEST(SafePath, RefusesEverySymlinkBelowTheRootEvenOneStayingInside) {
  TempTree tree;
  tree.Write("real/mod.py", "x\n");
  fs::create_directory_symlink(tree.root() / "real", tree.root() / "alias");
  Result<fs::path> p = ResolveInside(tree.root(), "alias/mod.py");
  ASSERT_FALSE(p);
  EXPECT_NE(p.error().message.find("'alias/mod.py': 'alias' is a symlink"), std::string::npos) << p.error().message;
  Result<fs::path> real = ResolveInside(tree.root(), "./real//mod.py");
  ASSERT_TRUE(real) << real.error().str();
  EXPECT_EQ(*real, fs::canonical(tree.root()) / "real" / "mod.py");
  Result<fs::path> missing = ResolveInside(tree.root(), "new/dir/file.py");
  ASSERT_TRUE(missing);
  EXPECT_EQ(*missing, fs::canonical(tree.root()) / "new" / "dir" / "file.py");
}

// Issue 16 item 1: archpatch's own state is never a target, however it is spelled.
TEST(SafePath, RefusesTheStateFolderHoweverSpelled) {
  TempTree tree;
  tree.Write(".archpatch/manifest.json", "{}");
  fs::create_directory_symlink(tree.root() / ".archpatch", tree.root() / "state");
  for (const char* spelling : {".archpatch/manifest.json", "./.archpatch/backups/x", ".archpatch", "a//.archpatch/x",
                               ".ARCHPATCH/manifest.json", "pkg/.ArchPatch/x"}) {
    Status s = CheckRelativePath(spelling);
    ASSERT_FALSE(s) << spelling;
    EXPECT_NE(s.error().message.find("is inside archpatch's state folder '.archpatch'"), std::string::npos)
        << s.error().message;
    EXPECT_FALSE(ResolveInside(tree.root(), spelling)) << spelling;
  }
  EXPECT_FALSE(CheckRelativePath("a/../.archpatch/manifest.json"));  // '..' first
  EXPECT_FALSE(ResolveInside(tree.root(), "state/manifest.json"));   // through a symlink
  Result<std::vector<std::string>> glob = GlobInside(tree.root(), "**/*.json");
  ASSERT_TRUE(glob);
  EXPECT_TRUE(glob->empty());
  EXPECT_TRUE(CheckRelativePath("pkg/archpatch/x.py"));
  EXPECT_TRUE(CheckRelativePath("pkg/.archpatch.py"));
}

}  // namespace
}  // namespace archpatch::env
