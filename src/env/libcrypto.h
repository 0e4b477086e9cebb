// OpenSSL's libcrypto, opened on the first digest (dlopen) instead of at start-up: loading and
// relocating it was 1.4 ms of every run (7,000 symbol relocations of archpatch's 27,000; its
// 4.7 MB mapped), and an audit of a source tree computes no digest. libcrypto.cc defines the
// EVP_* functions env/digest.cc calls, each forwarding to libcrypto's own, so the caller uses
// the API as OpenSSL documents it; the library stays Debian's, updated with it.
#pragma once

#include "util/result.h"

namespace archpatch::env {

// Opens libcrypto once, from any thread; the error names the library and says why it is missing.
// Callers call it before their first EVP_* call: an EVP_* function called while libcrypto cannot
// be opened ends the program with that message.
Status LoadLibcrypto();

}  // namespace archpatch::env
