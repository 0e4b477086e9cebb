#include "util/library_code.h"

#include <fstream>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace archpatch {
namespace {

// Resident KiB of the executable mappings of the library named `name` (from /proc/self/smaps).
size_t ResidentCodeKb(std::string_view name) {
  std::ifstream smaps("/proc/self/smaps");
  size_t kb = 0;
  bool in_code = false;
  for (std::string line; std::getline(smaps, line);) {
    const size_t space = line.find(' ');
    if (space != std::string::npos && line.find('-') < space) {  // a mapping's header line
      in_code = line.find(" r-xp ") != std::string::npos && line.find(name) != std::string::npos;
    } else if (in_code && line.rfind("Rss:", 0) == 0) {
      kb += std::stoul(line.substr(4));
    }
  }
  return kb;
}

// libfmt stands for libLLVM here: a shared library this test runs, then not while it measures.
TEST(ReleaseLibraryCode, ItsCodeLeavesMemoryAndStillRunsAfterwards) {
  EXPECT_EQ(fmt::format("{}-{}", 12, "sm"), "12-sm");
  const size_t before = ResidentCodeKb("libfmt");
  ASSERT_GT(before, 0u) << "libfmt's code should be resident after a call";
  EXPECT_GT(ReleaseLibraryCode({"libfmt"}), 0u);
  EXPECT_LT(ResidentCodeKb("libfmt"), before);
  EXPECT_EQ(fmt::format("{}-{}", 12, "sm"), "12-sm");  // mapped back from the file as it runs
  EXPECT_GT(ResidentCodeKb("libfmt"), 0u);
}

TEST(ReleaseLibraryCode, ReleasesNothingOfALibraryNotLoaded) {
  EXPECT_EQ(ReleaseLibraryCode({"libnot-loaded-by-archpatch"}), 0u);
}

}  // namespace
}  // namespace archpatch
