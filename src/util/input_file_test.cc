#include "util/input_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include <gtest/gtest.h>

namespace archpatch {
namespace {

namespace fs = std::filesystem;

struct Dir {
  Dir() {
    std::string tmpl = (fs::temp_directory_path() / "archpatch_input_XXXXXX").string();
    path = mkdtemp(tmpl.data());
  }
  ~Dir() { fs::remove_all(path); }
  fs::path path;
};

TEST(ReadInputFile, ReadsARegularFileWithinTheLimit) {
  Dir dir;
  std::ofstream(dir.path / "r.yaml") << "id: x\n";
  Result<std::string> bytes = ReadInputFile(dir.path / "r.yaml", 6);
  ASSERT_TRUE(bytes) << bytes.error().str();
  EXPECT_EQ(*bytes, "id: x\n");
  bytes = ReadInputFile(dir.path / "r.yaml", 5);
  ASSERT_FALSE(bytes);
  EXPECT_EQ(bytes.error().str(), (dir.path / "r.yaml").string() + ": larger than 5 bytes");
}

TEST(ReadInputFile, RefusesDevicesFifosAndFolders) {
  Dir dir;
  Result<std::string> bytes = ReadInputFile("/dev/zero", kMaxRuleBytes);
  ASSERT_FALSE(bytes);
  EXPECT_EQ(bytes.error().str(), "/dev/zero: not a regular file");
  ASSERT_EQ(mkfifo((dir.path / "fifo").c_str(), 0600), 0);
  bytes = ReadInputFile(dir.path / "fifo", kMaxRuleBytes);  // must not block: nobody writes
  ASSERT_FALSE(bytes);
  EXPECT_EQ(bytes.error().str(), (dir.path / "fifo").string() + ": not a regular file");
  EXPECT_FALSE(ReadInputFile(dir.path, kMaxRuleBytes));
  bytes = ReadInputFile(dir.path / "missing", kMaxRuleBytes);
  ASSERT_FALSE(bytes);
  EXPECT_NE(bytes.error().message.find("No such file"), std::string::npos);
}

}  // namespace
}  // namespace archpatch
