// Giving back the resident pages of shared libraries' code. libLLVM's static constructors, run
// when the loader maps it, touch code all over its text, and each page fault maps a 64 KiB
// window around it (fault-around): an audit held 37 MB of libLLVM's code and 5 MB of libclang's
// before it read a file, 63 MB of peak RSS in all, while the code it runs later is a small part.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <string_view>

namespace archpatch {

// Drops the resident pages of every executable mapping whose file name contains one of `names`
// (madvise MADV_DONTNEED). Code pages are never written, so nothing is lost: what runs later is
// mapped again from the page cache as it runs. Returns the bytes of the mappings released;
// failures only leave the pages where they were.
size_t ReleaseLibraryCode(std::initializer_list<std::string_view> names);

}  // namespace archpatch
