#include "cli/heap.h"

#include <cstddef>
#include <cstring>
#include <memory>
#include <string>

#include <sys/mman.h>

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

#ifdef ARCHPATCH_TCMALLOC
// Whether this kernel faults in a range at once (MADV_POPULATE_WRITE, Linux 5.14).
bool KernelPopulatesAtOnce() {
  void* page = ::mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (page == MAP_FAILED) return false;
  const bool ok = ::madvise(page, 4096, MADV_POPULATE_WRITE) == 0;
  ::munmap(page, 4096);
  return ok;
}

// tcmalloc's page heap, a static object of its library's .bss zeroed at the first malloc, was
// faulted in by one call before any library's constructor ran, not page by page.
TEST(TcmallocBss, IsFaultedInAtOnceBeforeTheFirstMalloc) {
  if (!KernelPopulatesAtOnce()) GTEST_SKIP() << "this kernel has no MADV_POPULATE_WRITE (Linux 5.14)";
  EXPECT_GE(TcmallocBssFaultedInAtStart(), size_t{1} << 20);  // the page map's root and cache: 1.5 MB
}
#endif

}  // namespace
}  // namespace archpatch::cli
