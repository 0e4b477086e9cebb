#include "cli/heap.h"

#include <cstddef>
#include <cstring>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "util/test_smaps.h"

namespace archpatch::cli {
namespace {

// tcmalloc took the regions at its start, before this test ran: a block made now lies in one,
// and so does what tcmalloc made for itself (its page map) at the process's first malloc.
TEST(UseHugePagesForTheHeap, TheHeapIsInHugePagesFromTheProcesssFirstMalloc) {
  auto small = std::make_unique<std::string>(100, 'x');
  EXPECT_NE(VmFlagsOf(small->data()).find(" hg"), std::string::npos) << VmFlagsOf(small->data());
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
