#include "cli/heap.h"

#ifdef ARCHPATCH_TCMALLOC
#include <gperftools/malloc_extension.h>

#include "util/huge_pages.h"
#endif

namespace archpatch::cli {

#ifdef ARCHPATCH_TCMALLOC
namespace {

// tcmalloc asks its system allocator for the memory it grows its page heap by (1 MiB or more at a
// time, under a lock of its own) and for its metadata.
class HugePageSystemAllocator : public SysAllocator {
 public:
  explicit HugePageSystemAllocator(SysAllocator* fallback) : fallback_(fallback) {}

  void* Alloc(size_t size, size_t* actual_size, size_t alignment) override {
    size_t taken = 0;
    if (void* region = regions_.Take(size, alignment, &taken)) {
      if (actual_size) *actual_size = taken;
      return region;
    }
    return fallback_ ? fallback_->Alloc(size, actual_size, alignment) : nullptr;
  }

 private:
  SysAllocator* const fallback_;
  HugePageRegions regions_;
};

}  // namespace

void UseHugePagesForTheHeap() {
  // Never destroyed: tcmalloc may grow the heap until the process's last free.
  static SysAllocator* const kInstalled = [] {
    MallocExtension* tcmalloc = MallocExtension::instance();
    auto* allocator = new HugePageSystemAllocator(tcmalloc->GetSystemAllocator());
    tcmalloc->SetSystemAllocator(allocator);
    return allocator;
  }();
  (void)kInstalled;
}
#else
void UseHugePagesForTheHeap() {}
#endif

}  // namespace archpatch::cli
