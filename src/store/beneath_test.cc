#include "store/beneath.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>

#include <gtest/gtest.h>

#include "store/disk.h"

namespace archpatch::store {
namespace {

namespace fs = std::filesystem;

class Tree {
 public:
  Tree() {
    std::string tmpl = (fs::temp_directory_path() / "archpatch_beneath_XXXXXX").string();
    path_ = mkdtemp(tmpl.data());
    fs::create_directories(path_ / "site/pkg/sub");
    fs::create_directories(path_ / "outside/sub");
    Write("site/pkg/sub/a.py", "inside\n");
    Write("outside/sub/a.py", "inside\n");
  }
  ~Tree() { fs::remove_all(path_); }
  fs::path site() const { return path_ / "site"; }
  fs::path outside() const { return path_ / "outside"; }
  void Write(const std::string& rel, const std::string& bytes) const {
    std::ofstream(path_ / rel, std::ios::binary) << bytes;
  }
  std::string Read(const fs::path& p) const {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

 private:
  fs::path path_;
};

TEST(Beneath, EveryResolverRefusesASymlinkAtAnyComponent) {
  Tree t;
  fs::create_directory_symlink(t.outside(), t.site() / "link");
  fs::create_directory_symlink(t.outside() / "sub", t.site() / "pkg/sublink");
  UniqueFd root(open(t.site().c_str(), O_RDONLY | O_DIRECTORY));
  for (Resolver r : {Resolver::automatic, Resolver::component_walk}) {
    EXPECT_TRUE(OpenDirBeneath(root.get(), "pkg/sub", false, r).valid());
    EXPECT_TRUE(OpenDirBeneath(root.get(), "", false, r).valid());
    for (const char* bad : {"link", "link/sub", "pkg/sublink", "pkg/../link"}) {
      errno = 0;
      EXPECT_FALSE(OpenDirBeneath(root.get(), bad, false, r).valid()) << bad;
      EXPECT_TRUE(errno == ELOOP || errno == EXDEV) << bad << ": " << errno;
    }
    errno = 0;
    EXPECT_FALSE(OpenDirBeneath(root.get(), "pkg/sub/a.py", false, r).valid());
    EXPECT_EQ(errno, ENOTDIR);
  }
  EXPECT_TRUE(OpenDirBeneath(root.get(), "new/dirs", true).valid());
  EXPECT_TRUE(fs::is_directory(t.site() / "new/dirs"));
  EXPECT_FALSE(OpenDirBeneath(root.get(), "link/made", true).valid());
  EXPECT_FALSE(fs::exists(t.outside() / "made"));
}

// The check-then-write window, in process: the disk was confined, a folder becomes a symlink,
// and every write fails instead of landing outside.
TEST(Beneath, RealDiskRefusesToWriteThroughAFolderSwappedForASymlink) {
  Tree t;
  RealDisk disk(t.site());
  ASSERT_EQ(disk.Stat(t.site() / "pkg/sub/a.py").kind, FileKind::file);
  fs::rename(t.site() / "pkg/sub", t.site() / "pkg/moved");
  fs::create_directory_symlink(t.outside() / "sub", t.site() / "pkg/sub");
  Status written = disk.Replace(t.site() / "pkg/sub/a.py", "patched\n");
  ASSERT_FALSE(written);
  EXPECT_NE(written.error().message.find("a symlink is on the way"), std::string::npos) << written.error().message;
  EXPECT_FALSE(disk.Remove(t.site() / "pkg/sub/a.py"));
  EXPECT_FALSE(disk.MakeDirs(t.site() / "pkg/sub/x"));
  EXPECT_FALSE(disk.Read(t.site() / "pkg/sub/a.py"));
  EXPECT_EQ(disk.Stat(t.site() / "pkg/sub/a.py").kind, FileKind::symlink);
  EXPECT_EQ(t.Read(t.outside() / "sub/a.py"), "inside\n");
  EXPECT_TRUE(fs::exists(t.outside() / "sub/a.py"));
  EXPECT_FALSE(fs::exists(t.outside() / "sub/x"));
}

TEST(Beneath, ReplaceSwapsASymlinkForAFileAndNeverWritesItsTarget) {
  Tree t;
  fs::create_symlink(t.outside() / "sub/a.py", t.site() / "pkg/manifest.json");
  RealDisk disk(t.site());
  EXPECT_FALSE(disk.Read(t.site() / "pkg/manifest.json"));
  ASSERT_TRUE(disk.Replace(t.site() / "pkg/manifest.json", "{}\n"));
  EXPECT_FALSE(fs::is_symlink(t.site() / "pkg/manifest.json"));
  EXPECT_EQ(t.Read(t.site() / "pkg/manifest.json"), "{}\n");
  EXPECT_EQ(t.Read(t.outside() / "sub/a.py"), "inside\n");
}

TEST(Beneath, ReadRefusesAFifoInsteadOfHanging) {
  Tree t;
  ASSERT_EQ(mkfifo((t.site() / "pkg/journal.json").c_str(), 0600), 0);
  RealDisk disk(t.site());
  Result<std::string> r = disk.Read(t.site() / "pkg/journal.json");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("not a regular file"), std::string::npos);
}

TEST(Beneath, ReplaceKeepsUserXattrsAndSetsTheMtimeAsked) {
  Tree t;
  fs::path file = t.site() / "pkg/sub/a.py";
  if (setxattr(file.c_str(), "user.origin", "wheel", 5, 0) != 0) GTEST_SKIP() << "no user xattrs here";
  RealDisk disk(t.site());
  ASSERT_TRUE(disk.Replace(file, "patched\n", {int64_t{1600000000} * 1000000000 + 5}));
  char value[16] = {};
  EXPECT_EQ(getxattr(file.c_str(), "user.origin", value, sizeof value), 5);
  EXPECT_EQ(std::string(value), "wheel");
  EXPECT_EQ(disk.Stat(file).mtime_ns, int64_t{1600000000} * 1000000000 + 5);
}

}  // namespace
}  // namespace archpatch::store
