#include "util/data_dir.h"

#include <cstdlib>
#include <fstream>

#include <gtest/gtest.h>

namespace archpatch {
namespace {
namespace fs = std::filesystem;

// A scratch folder in which each test lays out a tree as an install or a build would.
class DataDirLayout : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "archpatch_data_XXXXXX").string();
    root_ = fs::canonical(mkdtemp(tmpl.data()));
  }
  void TearDown() override { fs::remove_all(root_); }
  // <dir>/rules/features.yaml, as shipped.
  void Data(const fs::path& dir) {
    fs::create_directories(root_ / dir / "rules");
    std::ofstream(root_ / dir / "rules" / "features.yaml") << "features: []\n";
  }
  fs::path Exe(const fs::path& rel) {
    fs::create_directories((root_ / rel).parent_path());
    std::ofstream(root_ / rel) << "";
    return root_ / rel;
  }
  fs::path root_;
};

TEST_F(DataDirLayout, InstalledPrefixIsFoundBesideBin) {
  Data("prefix/share/archpatch");
  Result<DataDir> d = LocateDataDir(Exe("prefix/bin/archpatch"), nullptr);
  ASSERT_TRUE(d) << d.error().str();
  EXPECT_EQ(d->path, root_ / "prefix/share/archpatch");
  EXPECT_EQ(d->features(), root_ / "prefix/share/archpatch/rules/features.yaml");
  EXPECT_EQ(d->caches(), root_ / "prefix/share/archpatch/rules/caches.yaml");
  EXPECT_NE(d->found_by.find("installed"), std::string::npos);
}

TEST_F(DataDirLayout, BuildTreeIsFoundBesideTheBinary) {
  Data("build/share/archpatch");
  Result<DataDir> d = LocateDataDir(Exe("build/archpatch"), nullptr);
  ASSERT_TRUE(d) << d.error().str();
  EXPECT_EQ(d->path, root_ / "build/share/archpatch");
  EXPECT_NE(d->found_by.find("build tree"), std::string::npos);
}

TEST_F(DataDirLayout, TheInstalledLayoutWinsOverTheBuildTreeOne) {
  Data("p/share/archpatch");
  Data("p/bin/share/archpatch");
  Result<DataDir> d = LocateDataDir(Exe("p/bin/archpatch"), nullptr);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->path, root_ / "p/share/archpatch");
}

TEST_F(DataDirLayout, OverrideWinsAndAWrongOneIsAnErrorNotSkipped) {
  Data("prefix/share/archpatch");
  Data("mine");
  const fs::path exe = Exe("prefix/bin/archpatch");
  const std::string mine = (root_ / "mine").string();
  Result<DataDir> d = LocateDataDir(exe, mine.c_str());
  ASSERT_TRUE(d);
  EXPECT_EQ(d->path, root_ / "mine");
  EXPECT_EQ(d->found_by, "$ARCHPATCH_DATA_DIR");
  const std::string wrong = (root_ / "nothing-here").string();
  Result<DataDir> bad = LocateDataDir(exe, wrong.c_str());
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("ARCHPATCH_DATA_DIR='" + wrong + "'"), std::string::npos);
  EXPECT_TRUE(LocateDataDir(exe, "")) << "an empty override counts as unset";
}

TEST_F(DataDirLayout, AFolderWithoutTheFeatureTableIsNotTheDataFolder) {
  fs::create_directories(root_ / "prefix/share/archpatch/rules");  // rules/ but no features.yaml
  Result<DataDir> d = LocateDataDir(Exe("prefix/bin/archpatch"), nullptr);
  if (d) {
    EXPECT_NE(d->path, root_ / "prefix/share/archpatch");  // only a system install may answer
  } else {
    EXPECT_NE(d.error().message.find((root_ / "prefix/share/archpatch").string()), std::string::npos)
        << "the message lists where it looked";
  }
}

TEST(DataDirCandidates, SystemFoldersComeLast) {
  std::vector<DataDir> c = DataDirCandidates("/opt/ap/bin/archpatch", nullptr);
  ASSERT_EQ(c.size(), 4u);
  EXPECT_EQ(c[0].path, "/opt/ap/share/archpatch");
  EXPECT_EQ(c[2].path, "/usr/local/share/archpatch");
  EXPECT_EQ(c[3].path, "/usr/share/archpatch");
}

}  // namespace
}  // namespace archpatch
