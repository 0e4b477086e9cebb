// A shared library opened at its first use (dlopen) instead of linked: what most runs never call
// costs them no loading and no relocation at start-up (libclang and libLLVM: 17 ms; libcrypto:
// 1.4 ms). The callers define the library's C functions they call, each forwarding to the
// library's own through Symbol() (cuda/libclang.cc, env/libcrypto.cc).
#pragma once

#include <functional>
#include <initializer_list>
#include <mutex>
#include <string>
#include <vector>

#include "util/result.h"

namespace archpatch {

class LazyLibrary {
 public:
  // `what` names the library in errors ("libclang"); `names` are tried in turn as the loader
  // finds a library (the binary's RUNPATH, LD_LIBRARY_PATH, ld.so.cache, or a path);
  // `install_hint` ends the error when none opens ("Debian: apt-get install ..."); `after_open`
  // runs once, right after it opened.
  LazyLibrary(std::string what, std::initializer_list<const char*> names, std::string install_hint,
              std::function<void()> after_open = {});

  // Opens the library once, from any thread; the error names it and says why it is missing.
  Status Load();
  // The library's function `name`. Callers that can report an error call Load() first: a missing
  // library or function here is a broken install, and ends the program with its message.
  void* Symbol(const char* name);

 private:
  std::string what_;
  std::vector<const char*> names_;
  std::string install_hint_;
  std::function<void()> after_open_;
  std::once_flag opened_;
  void* handle_ = nullptr;
  std::string error_;  // when handle_ is null
};

}  // namespace archpatch

// Defines the library's C function `name` (return type `ret`, parameters `params`, called with
// `args`) as a forward to the library's own, resolved through `library` (a LazyLibrary&) at its
// first call. The compiler checks the signature against the library's header, which declares it.
#define ARCHPATCH_LAZY_FORWARD(library, ret, name, params, args)                           \
  extern "C" ret name params {                                                             \
    static const auto real = reinterpret_cast<decltype(&(name))>((library).Symbol(#name)); \
    return real args;                                                                      \
  }
