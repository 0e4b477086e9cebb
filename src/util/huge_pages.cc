#include "util/huge_pages.h"

#include <algorithm>
#include <cstdint>
#include <sys/mman.h>

namespace archpatch {
namespace {

size_t RoundUp(size_t n, size_t to) { return (n + to - 1) / to * to; }

}  // namespace

void* HugePageRegions::Take(size_t size, size_t alignment, size_t* taken) {
  if (alignment > kHugePage || size == 0 || size > (size_t{1} << 40)) return nullptr;
  size = RoundUp(size, kHugePage);
  std::lock_guard<std::mutex> lock(mutex_);
  if (static_cast<size_t>(end_ - next_) < size && !MapChunk(std::max(size, kChunk))) return nullptr;
  void* region = next_;
  next_ += size;
  *taken = size;
  return region;
}

// A chunk of `bytes` starting on a huge page: mapped a huge page longer, the slack on either side
// unmapped. What the previous chunk had left is abandoned (address space, never touched).
bool HugePageRegions::MapChunk(size_t bytes) {
  void* mapped = ::mmap(nullptr, bytes + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapped == MAP_FAILED) return false;
  char* const first = static_cast<char*>(mapped);
  char* const start =
      first + (RoundUp(reinterpret_cast<uintptr_t>(first), kHugePage) - reinterpret_cast<uintptr_t>(first));
  if (start > first) ::munmap(first, start - first);
  if (char* const tail = start + bytes; tail < first + bytes + kHugePage)
    ::munmap(tail, first + bytes + kHugePage - tail);
  // Refused (THP not built in) or off, the chunk is ordinary memory: still the heap's.
  ::madvise(start, bytes, MADV_HUGEPAGE);
  next_ = start;
  end_ = start + bytes;
  return true;
}

}  // namespace archpatch
