#include "env/libcrypto.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include <openssl/evp.h>

#include <fmt/format.h>

namespace archpatch::env {
namespace {

// The name the build linked against (its SONAME on Debian), found as the loader finds a library:
// the binary's RUNPATH (the tarball's lib/), LD_LIBRARY_PATH, ld.so.cache.
constexpr const char* kName = ARCHPATCH_LIBCRYPTO_SONAME;

struct Library {
  void* handle = nullptr;
  std::string error;  // when handle is null
};

const Library& Opened() {
  static const Library library = [] {
    Library out;
    out.handle = ::dlopen(kName, RTLD_LAZY | RTLD_LOCAL);
    if (!out.handle) {
      out.error = fmt::format("{} could not be loaded ({}; Debian: apt-get install libssl3)", kName, ::dlerror());
    }
    return out;
  }();
  return library;
}

void* Symbol(const char* name) {
  const Library& library = Opened();
  void* symbol = library.handle ? ::dlsym(library.handle, name) : nullptr;
  if (!symbol) {
    // A caller that could report it checked LoadLibcrypto() first: this is a broken install.
    std::fprintf(stderr, "archpatch: error: %s\n",
                 library.handle ? fmt::format("{} lacks {}", kName, name).c_str() : library.error.c_str());
    std::abort();
  }
  return symbol;
}

}  // namespace

Status LoadLibcrypto() {
  const Library& library = Opened();
  if (!library.handle) return Error{library.error, {}};
  return Ok{};
}

}  // namespace archpatch::env

// The EVP_* functions archpatch calls, with libcrypto's signatures (the compiler checks them
// against openssl/evp.h), each resolved on its first call.
#define ARCHPATCH_FORWARD(ret, name, params, args)                                               \
  extern "C" ret name params {                                                                   \
    static const auto real = reinterpret_cast<decltype(&(name))>(archpatch::env::Symbol(#name)); \
    return real args;                                                                            \
  }

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
