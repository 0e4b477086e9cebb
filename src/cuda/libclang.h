// libclang, opened on first use (dlopen) instead of at start-up: loading and relocating libclang
// and LLVM took 17 ms of every run, and most runs (apply, revert, status, an audit whose files
// need no parse) never call it. libclang.cc defines the clang_* functions archpatch calls, each
// forwarding to libclang's own, so callers use the C API as documented.
#pragma once

#include "util/result.h"

namespace archpatch::cuda {

// Opens libclang once, from any thread; the error names the library and says why it is missing.
// Callers that can report an error call it before their first clang_* call: a clang_* function
// called while libclang cannot be opened ends the program with that message.
Status LoadLibclang();

}  // namespace archpatch::cuda
