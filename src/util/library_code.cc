#include "util/library_code.h"

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/mman.h>

namespace archpatch {

size_t ReleaseLibraryCode(std::initializer_list<std::string_view> names) {
  std::ifstream maps("/proc/self/maps");
  size_t released = 0;
  std::string line;
  // Lines read "start-end perms offset dev inode path", a few hundred of them.
  while (std::getline(maps, line)) {
    std::istringstream in(line);
    std::string range, perms, offset, dev, inode, path;
    if (!(in >> range >> perms >> offset >> dev >> inode >> path) || perms != "r-xp") continue;
    const std::string_view file = std::string_view(path).substr(path.rfind('/') + 1);
    bool wanted = false;
    for (std::string_view name : names) wanted |= file.find(name) != std::string_view::npos;
    uintptr_t start = 0, end = 0;
    if (!wanted || std::sscanf(range.c_str(), "%lx-%lx", &start, &end) != 2 || end <= start) continue;
    // A private file mapping that was never written: its pages come back from the file.
    void* code = reinterpret_cast<void*>(start);  // NOLINT(performance-no-int-to-ptr): an address from the maps file
    if (::madvise(code, end - start, MADV_DONTNEED) == 0) released += end - start;
  }
  return released;
}

}  // namespace archpatch
