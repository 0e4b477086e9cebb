#include "cli/heap.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>

#include <gtest/gtest.h>

namespace archpatch::cli {
namespace {

// The VmFlags line of the /proc/self/smaps mapping holding `address` ("" when none holds it).
std::string VmFlagsOf(const void* address) {
  std::ifstream smaps("/proc/self/smaps");
  const auto at = reinterpret_cast<uintptr_t>(address);
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    uintptr_t start = 0, end = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx ", &start, &end) == 2 && line.find('-') < line.find(' ')) {
      inside = start <= at && at < end;
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      return line;
    }
  }
  return "";
}

// A block larger than anything the heap held: tcmalloc grows its page heap for it.
TEST(UseHugePagesForTheHeap, WhatTheHeapGrowsByIsAdvisedForHugePages) {
  UseHugePagesForTheHeap();
  UseHugePagesForTheHeap();  // once is enough; again changes nothing
  constexpr size_t kBytes = size_t{96} << 20;
  std::unique_ptr<char[]> block(new char[kBytes]);
  std::memset(block.get(), 1, kBytes);
  EXPECT_NE(VmFlagsOf(block.get()).find(" hg"), std::string::npos) << VmFlagsOf(block.get());
  EXPECT_EQ(block[kBytes - 1], 1);
  // Small blocks still come and go as before.
  for (int i = 0; i < 100000; ++i) {
    auto small = std::make_unique<std::string>(64, 'x');
    ASSERT_EQ((*small)[63], 'x');
  }
}

}  // namespace
}  // namespace archpatch::cli
