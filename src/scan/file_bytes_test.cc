// A worker's FileBytes is reused file after file: each load must show that file's bytes alone.
#include "scan/file_bytes.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

namespace archpatch::scan {
namespace {

namespace fs = std::filesystem;

class FileBytesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("archpatch_file_bytes_" + std::to_string(getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Write(const std::string& name, const std::string& bytes) {
    const fs::path path = dir_ / name;
    std::ofstream(path, std::ios::binary) << bytes;
    return path.string();
  }
  fs::path dir_;
};

TEST_F(FileBytesTest, EachLoadShowsThatFileOnly) {
  FileBytes file;
  const std::string large(5 << 20, 'x');  // past the read limit: mapped
  const std::string paths[] = {Write("a.h", "#if A\n#endif\n"), Write("big.h", large), Write("b.h", "int b;\n"),
                               Write("empty.h", "")};
  ASSERT_TRUE(file.Load(paths[0]).ok());
  EXPECT_EQ(file.view(), "#if A\n#endif\n");
  ASSERT_TRUE(file.Load(paths[1]).ok());
  EXPECT_EQ(file.view(), large);
  ASSERT_TRUE(file.Load(paths[2]).ok());
  EXPECT_EQ(file.view(), "int b;\n");  // the smaller file, not the tail of an earlier one
  ASSERT_TRUE(file.Load(paths[3]).ok());
  EXPECT_EQ(file.view(), "");
  file.Release();
  ASSERT_TRUE(file.Load(paths[0]).ok());
  EXPECT_EQ(file.view(), "#if A\n#endif\n");
}

TEST_F(FileBytesTest, AFailedLoadShowsNoEarlierBytes) {
  FileBytes file;
  ASSERT_TRUE(file.Load(Write("a.h", "int a;\n")).ok());
  const Status missing = file.Load((dir_ / "gone.h").string());
  EXPECT_FALSE(missing.ok());
  EXPECT_EQ(file.view(), "");
}

}  // namespace
}  // namespace archpatch::scan
