// Whether a byte string holds another, by glibc's memmem (a vectorised two-way search), not
// std::string_view::find (a memchr for the first byte, then a compare at every hit): over a
// whole source file or a library's string table the second stops at nearly every line.
#pragma once

#include <cstring>
#include <string_view>

namespace archpatch {

inline bool Contains(std::string_view haystack, std::string_view needle) {
  return memmem(haystack.data(), haystack.size(), needle.data(), needle.size()) != nullptr;
}

}  // namespace archpatch
