// For tests: what /proc/self/smaps says of the mapping holding an address.
#pragma once

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>

namespace archpatch {

// The VmFlags line of the mapping holding `address` ("" when none holds it): " hg" in it is
// madvise(MADV_HUGEPAGE)'s advice.
inline std::string VmFlagsOf(const void* address) {
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

}  // namespace archpatch
