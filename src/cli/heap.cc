#include "cli/heap.h"

#ifdef ARCHPATCH_TCMALLOC
#include <new>

#include <gperftools/malloc_extension.h>

#include "util/huge_pages.h"
#endif

#ifdef ARCHPATCH_TCMALLOC
namespace archpatch::cli {
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

// Made in place: tcmalloc asks for it inside its first malloc, where a malloc of ours would
// recurse, and before any static constructor of ours has run. Never destroyed: tcmalloc may grow
// the heap until the process's last free.
alignas(HugePageSystemAllocator) unsigned char allocator_storage[sizeof(HugePageSystemAllocator)];
HugePageSystemAllocator* installed = nullptr;

HugePageSystemAllocator* Install(SysAllocator* fallback) {
  if (!installed) installed = new (allocator_storage) HugePageSystemAllocator(fallback);
  return installed;
}

}  // namespace

void UseHugePagesForTheHeap() {
  if (installed) return;  // tcmalloc took it at its start (below)
  MallocExtension* tcmalloc = MallocExtension::instance();
  tcmalloc->SetSystemAllocator(Install(tcmalloc->GetSystemAllocator()));
}

}  // namespace archpatch::cli

// gperftools' hook for a program's own system allocator (weak in libtcmalloc, called through its
// PLT, so the executable's definition is the one taken): tcmalloc calls it once, at its first
// malloc, while the shared libraries' constructors run. Taken there, its own metadata (the page
// map's leaves, 2 MiB each, zeroed at once) lies in huge pages too: 1,063 -> 543 page faults for a
// program that only starts and exits.
SysAllocator* tc_get_sysalloc_override(SysAllocator* fallback);
SysAllocator* tc_get_sysalloc_override(SysAllocator* fallback) { return archpatch::cli::Install(fallback); }
#else
namespace archpatch::cli {
void UseHugePagesForTheHeap() {}
}  // namespace archpatch::cli
#endif
