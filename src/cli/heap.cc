#include "cli/heap.h"

#ifdef ARCHPATCH_TCMALLOC
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <new>

#include <gperftools/malloc_extension.h>
#include <gperftools/tcmalloc.h>

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

// tcmalloc's page heap is a static object in libtcmalloc's .bss (the page map's root and the size
// class cache, 1.5 of the 1.7 MB), zeroed by its constructor at the process's first malloc: a page
// fault for each of its 4 KiB pages (a program that only starts and exits, where a fault costs
// 12 us: 1.2 ms with glibc's malloc, 11.3 ms with tcmalloc's, 7.0 with its heap in huge pages, 4.5
// with the .bss faulted in at once; on the GPU machine, where faults cost less, 0.6, 3.0, 2.9 and
// 2.7 ms). The executable's preinit functions run before any
// library's constructor, so before that first malloc: the .bss is faulted in here, in one call.
// A kernel without MADV_POPULATE_WRITE (before 5.14) leaves the pages to fault as before.
size_t populated = 0;

int PopulateTcmallocBss(dl_phdr_info* info, size_t, void*) {
  const auto malloc_at = reinterpret_cast<uintptr_t>(&tc_malloc);
  bool holds_tcmalloc = false;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& segment = info->dlpi_phdr[i];
    const uintptr_t begin = info->dlpi_addr + segment.p_vaddr;
    holds_tcmalloc |= segment.p_type == PT_LOAD && begin <= malloc_at && malloc_at < begin + segment.p_memsz;
  }
  if (!holds_tcmalloc) return 0;
  const uintptr_t page = static_cast<uintptr_t>(::getpagesize());
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& segment = info->dlpi_phdr[i];
    if (segment.p_type != PT_LOAD || !(segment.p_flags & PF_W) || segment.p_memsz <= segment.p_filesz) continue;
    // The .bss: the segment's bytes past those of the file, from the first whole page.
    const uintptr_t begin = (info->dlpi_addr + segment.p_vaddr + segment.p_filesz + page - 1) & ~(page - 1);
    const uintptr_t end = (info->dlpi_addr + segment.p_vaddr + segment.p_memsz + page - 1) & ~(page - 1);
    void* bss = reinterpret_cast<void*>(begin);  // NOLINT(performance-no-int-to-ptr): the loader's addresses
    if (begin < end && ::madvise(bss, end - begin, MADV_POPULATE_WRITE) == 0) populated += end - begin;
  }
  return 1;  // found: the walk stops
}

void PopulateTcmallocBssFirst(int, char**, char**) { ::dl_iterate_phdr(PopulateTcmallocBss, nullptr); }

}  // namespace

// In .preinit_array: run by the loader before the shared libraries' constructors.
[[gnu::section(".preinit_array"), gnu::used]] void (*const populate_tcmalloc_bss)(int, char**,
                                                                                  char**) = PopulateTcmallocBssFirst;

size_t TcmallocBssFaultedInAtStart() { return populated; }

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
size_t TcmallocBssFaultedInAtStart() { return 0; }
}  // namespace archpatch::cli
#endif
