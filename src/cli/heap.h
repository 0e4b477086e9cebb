// The process's heap in huge pages, where tcmalloc is its malloc (util/huge_pages.h says why).
#pragma once

#include <cstddef>

namespace archpatch::cli {

// Makes tcmalloc grow its heap by regions of util/huge_pages.h's HugePageRegions, and by its own
// system allocator once they are refused. A program linking heap.cc has them from tcmalloc's
// first malloc (heap.cc: gperftools' tc_get_sysalloc_override); this installs them where tcmalloc
// did not ask, and is called first thing in main, before any thread. A build without tcmalloc
// (the sanitizers', libFuzzer's, which bring their own malloc) keeps its heap.
void UseHugePagesForTheHeap();

// The bytes of tcmalloc's .bss (its page heap) faulted in at once before any library's constructor
// ran (heap.cc says why); 0 without tcmalloc or where the kernel cannot.
size_t TcmallocBssFaultedInAtStart();

}  // namespace archpatch::cli
