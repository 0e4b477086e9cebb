#include "env/libcrypto.h"

#include <openssl/evp.h>

#include "util/lazy_library.h"

namespace archpatch::env {
namespace {

// The name the build linked against (its SONAME on Debian), found as the loader finds a library:
// the binary's RUNPATH (the tarball's lib/), LD_LIBRARY_PATH, ld.so.cache.
LazyLibrary& Libcrypto() {
  static LazyLibrary library("libcrypto", {ARCHPATCH_LIBCRYPTO_SONAME}, "Debian: apt-get install libssl3");
  return library;
}

}  // namespace

Status LoadLibcrypto() { return Libcrypto().Load(); }

}  // namespace archpatch::env

// The EVP_* functions archpatch calls, with libcrypto's signatures (the compiler checks them
// against openssl/evp.h), each resolved on its first call.
#define ARCHPATCH_FORWARD(ret, name, params, args) \
  ARCHPATCH_LAZY_FORWARD(archpatch::env::Libcrypto(), ret, name, params, args)

ARCHPATCH_FORWARD(const EVP_MD*, EVP_sha256, (void), ())
ARCHPATCH_FORWARD(int, EVP_Digest,
                  (const void* data, size_t count, unsigned char* md, unsigned int* size, const EVP_MD* type,
                   ENGINE* impl),
                  (data, count, md, size, type, impl))
ARCHPATCH_FORWARD(EVP_MD_CTX*, EVP_MD_CTX_new, (void), ())
ARCHPATCH_FORWARD(void, EVP_MD_CTX_free, (EVP_MD_CTX * ctx), (ctx))
ARCHPATCH_FORWARD(int, EVP_DigestInit_ex, (EVP_MD_CTX * ctx, const EVP_MD* type, ENGINE* impl), (ctx, type, impl))
ARCHPATCH_FORWARD(int, EVP_DigestUpdate, (EVP_MD_CTX * ctx, const void* d, size_t cnt), (ctx, d, cnt))
ARCHPATCH_FORWARD(int, EVP_DigestFinal_ex, (EVP_MD_CTX * ctx, unsigned char* md, unsigned int* s), (ctx, md, s))

#undef ARCHPATCH_FORWARD
