// C/C++ integer constants of a package, for runtime checks that compare a capability with a
// named number defined in a shared header (`FLASHINFER_CHECK(mSM == kSM_100 || ...)` with
// `constexpr int32_t kSM_100 = 100;` in common.h). Read from tokens: `constexpr`/`const` integer
// variables and enumerators with an explicit integer value. A name is looked up in the file
// itself, then in the headers it includes with `#include "..."` (transitively, depth-limited,
// each header read and cached once per process, cycles harmless), searched from the including
// file's folder and each folder above it. `#define` macros are src/cuda/macro_env's business.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cuda/tokens.h"

namespace archpatch::cuda {

struct NamedConstant {
  long long value = 0;
  std::string file;
  int line = 0;
  int column = 0;
  std::string text;  // the definition as written ("constexpr int32_t kSM_100 = 100")
};

// The constants and quoted includes of one file.
struct FileConstants {
  std::map<std::string, NamedConstant, std::less<>> constants;
  std::vector<std::string> includes;  // as written between the quotes
};
FileConstants ReadFileConstants(const std::string& file, std::string_view contents, const std::vector<Token>& tokens);

// Lookup for one file: its own constants first, then its includes' (breadth first).
class ConstantLookup {
 public:
  ConstantLookup(const std::string& file, FileConstants own) : file_(file), own_(std::move(own)) {}
  std::optional<NamedConstant> Find(std::string_view name) const;

 private:
  std::string file_;
  FileConstants own_;
};

// Headers read by every lookup so far (for tests and the cost figures).
size_t HeadersRead();

}  // namespace archpatch::cuda
