// Function-like macros a file defines that build a check out of their arguments:
// `#define RETURN_FALSE_UNLESS(cond) if (!(cond)) return false`, `#define REQUIRE_SM(v)
// TORCH_CHECK(getSMVersion() >= v, "...")`. A compiler reads a call of one through its expansion;
// the runtime token pass (runtime_tokens.cc) does the same, one level deep, and reports the check
// at the call, also where the macro's own name reads as a check's (`#define CHECK_SM90(sm) if
// (sm < 90) throw ...`). Macros of other files are not expanded: their checks are read where
// written, and a call of one is read as a check macro when its name says so.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cuda/runtime_eval.h"
#include "cuda/tokens.h"

namespace archpatch::cuda {

// A body that names a long argument many times could expand a small file without bound; a real
// check's expansion is a line or two.
inline constexpr size_t kMaxExpansionBytes = 64 * 1024;

class FileCheckMacros {
 public:
  // `view`: runtime_detail::MakeView(contents, tokens), whose directives are read.
  FileCheckMacros(const runtime_detail::View& view, const std::vector<Token>& tokens);

  bool Has(std::string_view name) const { return macros_.find(name) != macros_.end(); }

  // The replacement text of `name` called with `args` (each argument's text), or nothing when the
  // call does not match the parameters, the body pastes tokens (`##`) or the text would pass
  // kMaxExpansionBytes. A `#param` becomes an empty string literal: what a check's message says
  // does not decide what it lets through.
  std::optional<std::string> Expand(std::string_view name, const std::vector<std::string_view>& args) const;

 private:
  struct Macro {
    std::vector<std::string_view> params;
    bool variadic = false;
    std::vector<std::string_view> body;  // token spellings
  };
  std::map<std::string_view, Macro, std::less<>> macros_;
};

}  // namespace archpatch::cuda
