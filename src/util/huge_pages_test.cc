#include "util/huge_pages.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "util/test_smaps.h"

namespace archpatch {
namespace {

bool OnHugePage(const void* p) { return reinterpret_cast<uintptr_t>(p) % HugePageRegions::kHugePage == 0; }

TEST(HugePageRegions, RegionsAreWholeAlignedHugePagesAdvisedToTheKernel) {
  HugePageRegions regions;
  size_t taken = 0;
  void* one = regions.Take(1 << 20, 8192, &taken);  // what tcmalloc asks: 1 MiB, its 8 KiB pages
  ASSERT_NE(one, nullptr);
  EXPECT_TRUE(OnHugePage(one));
  EXPECT_EQ(taken, HugePageRegions::kHugePage);
  EXPECT_NE(VmFlagsOf(one).find(" hg"), std::string::npos) << VmFlagsOf(one);  // MADV_HUGEPAGE
  std::memset(one, 0x5a, taken);                                               // usable to its end
  EXPECT_EQ(static_cast<unsigned char*>(one)[taken - 1], 0x5a);
}

TEST(HugePageRegions, RegionsNeverOverlapWithinOrAcrossChunks) {
  HugePageRegions regions;
  std::vector<std::pair<char*, size_t>> taken_so_far;
  // Within the first chunk, one larger than a chunk, then what no longer fits the rest of one.
  for (size_t size : {size_t{3} << 20, size_t{60} << 20, size_t{5} << 20, size_t{100} << 20, size_t{1}}) {
    size_t taken = 0;
    auto* region = static_cast<char*>(regions.Take(size, 4096, &taken));
    ASSERT_NE(region, nullptr) << size;
    EXPECT_GE(taken, size);
    EXPECT_EQ(taken % HugePageRegions::kHugePage, 0u);
    EXPECT_TRUE(OnHugePage(region));
    for (const auto& [other, length] : taken_so_far) {
      EXPECT_TRUE(region + taken <= other || other + length <= region) << size << " overlaps an earlier region";
    }
    region[0] = region[taken - 1] = 1;
    taken_so_far.emplace_back(region, taken);
  }
}

TEST(HugePageRegions, AnAlignmentBeyondAHugePageIsLeftToTheCaller) {
  HugePageRegions regions;
  size_t taken = 7;
  EXPECT_EQ(regions.Take(1 << 20, HugePageRegions::kHugePage * 2, &taken), nullptr);
  EXPECT_EQ(regions.Take(0, 4096, &taken), nullptr);
  EXPECT_EQ(taken, 7u);
}

}  // namespace
}  // namespace archpatch
