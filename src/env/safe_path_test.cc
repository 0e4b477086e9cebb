#include "env/safe_path.h"

#include <gtest/gtest.h>

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
  EXPECT_EQ(p.error().message,
            "'pkg/../../etc/passwd' contains '..'; paths must stay inside site-packages");
  EXPECT_FALSE(ResolveInside(tree.root(), ""));
}

TEST(SafePath, RefusesSymlinksLeadingOut) {
  TempTree outside, tree;
  outside.Write("secret.py", "x\n");
  fs::create_directories(tree.root() / "pkg");
  fs::create_directory_symlink(outside.root(), tree.root() / "pkg" / "link");
  Result<fs::path> p = ResolveInside(tree.root(), "pkg/link/secret.py");
  ASSERT_FALSE(p);
  EXPECT_NE(p.error().message.find("'pkg/link/secret.py' is a symlink leading out of"),
            std::string::npos)
      << p.error().message;
  fs::create_symlink(outside.root() / "secret.py", tree.root() / "pkg" / "file.py");
  EXPECT_FALSE(ResolveInside(tree.root(), "pkg/file.py"));
}

TEST(SafePath, FollowsSymlinksThatStayInside) {
  TempTree tree;
  tree.Write("real/mod.py", "x\n");
  fs::create_directory_symlink(tree.root() / "real", tree.root() / "alias");
  Result<fs::path> p = ResolveInside(tree.root(), "alias/mod.py");
  ASSERT_TRUE(p) << p.error().str();
  EXPECT_EQ(*p, fs::canonical(tree.root()) / "real" / "mod.py");
  Result<fs::path> missing = ResolveInside(tree.root(), "new/dir/file.py");
  ASSERT_TRUE(missing);
  EXPECT_EQ(*missing, fs::canonical(tree.root()) / "new" / "dir" / "file.py");
}

}  // namespace
}  // namespace archpatch::env
