#include "util/lazy_library.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <utility>

#include <fmt/format.h>

namespace archpatch {

LazyLibrary::LazyLibrary(std::string what, std::initializer_list<const char*> names, std::string install_hint,
                         std::function<void()> after_open)
    : what_(std::move(what)),
      names_(names),
      install_hint_(std::move(install_hint)),
      after_open_(std::move(after_open)) {}

Status LazyLibrary::Load() {
  std::call_once(opened_, [this] {
    for (const char* name : names_) {
      handle_ = ::dlopen(name, RTLD_LAZY | RTLD_LOCAL);
      if (handle_) {
        if (after_open_) after_open_();
        return;
      }
      if (error_.empty()) error_ = ::dlerror();
    }
    error_ = fmt::format("{} could not be loaded ({}; {})", what_, error_, install_hint_);
  });
  if (!handle_) return Error{error_, {}};
  return Ok{};
}

void* LazyLibrary::Symbol(const char* name) {
  const Status loaded = Load();
  void* symbol = loaded ? ::dlsym(handle_, name) : nullptr;
  if (!symbol) {
    const std::string why = loaded ? fmt::format("{} lacks {}", names_.front(), name) : error_;
    std::fprintf(stderr, "archpatch: error: %s\n", why.c_str());
    std::abort();
  }
  return symbol;
}

}  // namespace archpatch
