#include "store/disk.h"

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include <gtest/gtest.h>

namespace archpatch::store {
namespace {

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "archpatch_store_XXXXXX").string();
    path_ = mkdtemp(tmpl.data());
  }
  ~TempDir() { fs::remove_all(path_); }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

void Write(const fs::path& p, const std::string& bytes) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << bytes;
}

TEST(RealDisk, ReplaceWritesTheExactBytesCrlfBomAndNoFinalNewline) {
  TempDir dir;
  fs::path file = dir.path() / "a.py";
  Write(file, "old\n");
  RealDisk disk;
  const std::string bytes = "\xEF\xBB\xBFline one\r\nline two\r\nno newline at end";
  ASSERT_TRUE(disk.Replace(file, bytes));
  EXPECT_EQ(*disk.Read(file), bytes);
  EXPECT_FALSE(fs::exists(TempPathFor(file)));
}

TEST(RealDisk, ReplaceKeepsModeAndOwner) {
  TempDir dir;
  fs::path file = dir.path() / "run.sh";
  Write(file, "#!/bin/sh\n");
  ASSERT_EQ(chmod(file.c_str(), 0750), 0);
  RealDisk disk;
  FileInfo before = disk.Stat(file);
  ASSERT_TRUE(disk.Replace(file, "#!/bin/sh\necho hi\n"));
  FileInfo after = disk.Stat(file);
  EXPECT_EQ(after.mode, 0750u);
  EXPECT_EQ(after.uid, before.uid);
  EXPECT_EQ(after.gid, before.gid);
}

TEST(RealDisk, ReplaceBreaksAHardLinkTheOtherNameKeepsTheOldBytes) {
  TempDir dir;
  fs::path shared = dir.path() / "uv-cache/flashinfer/comm.py";
  fs::path installed = dir.path() / "site-packages/flashinfer/comm.py";
  Write(shared, "supported_major_versions=[9, 10]\n");
  fs::create_directories(installed.parent_path());
  fs::create_hard_link(shared, installed);
  RealDisk disk;
  EXPECT_EQ(disk.Stat(installed).nlink, 2u);
  ASSERT_TRUE(disk.Replace(installed, "supported_major_versions=[9, 10, 12]\n"));
  EXPECT_EQ(*disk.Read(installed), "supported_major_versions=[9, 10, 12]\n");
  EXPECT_EQ(*disk.Read(shared), "supported_major_versions=[9, 10]\n");
  EXPECT_EQ(disk.Stat(installed).nlink, 1u);
  EXPECT_EQ(disk.Stat(shared).nlink, 1u);
}

TEST(RealDisk, StatDoesNotFollowSymlinksAndRemoveUnlinksOnlyTheLink) {
  TempDir dir;
  Write(dir.path() / "target", "keep me");
  fs::create_symlink(dir.path() / "target", dir.path() / "link");
  RealDisk disk;
  EXPECT_EQ(disk.Stat(dir.path() / "link").kind, FileKind::symlink);
  ASSERT_TRUE(disk.Remove(dir.path() / "link"));
  EXPECT_FALSE(fs::exists(fs::symlink_status(dir.path() / "link")));
  EXPECT_EQ(*disk.Read(dir.path() / "target"), "keep me");
}

TEST(RealDisk, ListIsSorted) {
  TempDir dir;
  Write(dir.path() / "b", "");
  Write(dir.path() / "a", "");
  RealDisk disk;
  EXPECT_EQ(*disk.List(dir.path()), (std::vector<std::string>{"a", "b"}));
}

TEST(FaultyDisk, ACrashInAReplaceLeavesTheTargetIntactAndOnlyAHalfTempFile) {
  TempDir dir;
  fs::path file = dir.path() / "a.cuh";
  Write(file, "original\n");
  RealDisk real;
  FaultyDisk faulty(real, 0);
  EXPECT_THROW((void)faulty.Replace(file, "0123456789"), InjectedCrash);
  EXPECT_EQ(*real.Read(file), "original\n");
  EXPECT_EQ(*real.Read(TempPathFor(file)), "01234");
}

}  // namespace
}  // namespace archpatch::store
