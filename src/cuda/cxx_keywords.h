// The identifiers C++20 (as clang 19 reads it) lexes as keywords: `int`, `if`, `and`,
// `__attribute__`, `__is_pod`, ... Token kinds follow it, so that `kKeyword` means what libclang's
// CXToken_Keyword meant to every pass written against it.
#pragma once

#include <string_view>

namespace archpatch::cuda {

bool IsCxxKeyword(std::string_view word);

}  // namespace archpatch::cuda
