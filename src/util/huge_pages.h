// Memory the kernel may back with 2 MiB pages (transparent huge pages, madvise MADV_HUGEPAGE),
// for the process's heap. An audit touches its heap once and gives it back at exit: in 4 KiB
// pages that was 13.6k page faults on FlashInfer + CUTLASS, and on the GPU machine's 16 cores
// 8.8-15.4 ms of the process's exit, each fault and the exit's unmapping under the address-space
// lock the other threads' faults take. In 2 MiB pages: 2.3k faults, an exit of 3.3-4.5 ms, 7%
// less wall time there, for 8 MB more peak RSS (a huge page is resident whole once touched).
// Where THP is off ("never") the advice does nothing and the regions are ordinary memory.
#pragma once

#include <cstddef>
#include <mutex>

namespace archpatch {

// Hands out regions of whole huge pages, each aligned on one, carved from chunks mapped with the
// advice. Thread-safe. Nothing is ever given back to it: a malloc's system allocator only grows.
class HugePageRegions {
 public:
  static constexpr size_t kHugePage = size_t{2} << 20;
  // Chunks are mapped this large (or as large as a region asks), so that a heap of a few hundred
  // MB takes a few mappings: each mmap waits for the address-space lock.
  static constexpr size_t kChunk = size_t{64} << 20;

  // A region of at least `size` bytes aligned on `alignment` (at most a huge page), its length
  // (whole huge pages) in `*taken`; nullptr when the system maps no more or the alignment is
  // larger, and the caller takes memory elsewhere.
  void* Take(size_t size, size_t alignment, size_t* taken);

 private:
  bool MapChunk(size_t bytes);

  std::mutex mutex_;
  char* next_ = nullptr;  // the current chunk's first byte not handed out
  char* end_ = nullptr;
};

}  // namespace archpatch
