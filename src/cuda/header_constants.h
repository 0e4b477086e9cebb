// C/C++ integer constants of a package, for runtime checks that compare a capability with a
// named number defined in a shared header (`FLASHINFER_CHECK(mSM == kSM_100 || ...)` with
// `constexpr int32_t kSM_100 = 100;` in common.h). Read from tokens: `constexpr`/`const` integer
// variables and enumerators with an explicit integer value. A name is looked up in the file
// itself, then in the headers it includes with `#include "..."` (transitively, depth-limited,
// cycles harmless), searched from the including file's folder and each folder above it. Each
// header is read once per process (its includes from its directive lines) and lexed only when a
// lookup asks for a name it may define. `#define` macros are src/cuda/macro_env's business.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cuda/functions.h"
#include "cuda/tokens.h"

namespace archpatch::cuda {

struct NamedConstant {
  long long value = 0;
  std::string file;
  int line = 0;
  int column = 0;
  std::string text;  // the definition as written ("constexpr int32_t kSM_100 = 100")
};

// A constant declared inside a function body: seen only by code of that body.
struct LocalConstant {
  NamedConstant constant;
  size_t begin = 0, end = 0;  // the body's bytes ('{' to one past '}')
};

// The constants and quoted includes of one file.
struct FileConstants {
  std::map<std::string, NamedConstant, std::less<>> constants;    // outside every function body
  std::multimap<std::string, LocalConstant, std::less<>> locals;  // by name, in file order
  std::vector<std::string> includes;                              // as written between the quotes
};

// What a file's reader takes besides its constants and enumerators: the scanned file itself also
// gives its object-like `#define NAME INTEGER` lines and the constants of its function bodies (as
// a compiler of the file alone sees them); a header's lines are its includers' business
// (src/cuda/macro_env), and its function bodies are no one else's.
enum class ConstantsOf { kScannedFile, kHeader };
// `bodies`: the file's function bodies when the caller asks them too (LazyBodies over `tokens`).
FileConstants ReadFileConstants(const std::string& file, std::string_view contents, const std::vector<Token>& tokens,
                                ConstantsOf what = ConstantsOf::kScannedFile, LazyBodies* bodies = nullptr);

class HeaderFacts;  // what the lookups keep of a header (header_constants.cc)

// Lookup for one file: its own constants first, then its includes' (breadth first). The include
// closure is walked once, at the first name the file itself does not define, and every answer is
// kept: a file's lookups cost one walk of its closure plus one probe per header per new name.
class ConstantLookup {
 public:
  ConstantLookup(const std::string& file, FileConstants own) : file_(file), own_(std::move(own)) {}
  // The file's own constants read at the first lookup: the runtime pass looks one up only for a
  // condition that reads a capability, which most host files it reads have none of (reading them
  // all first was a quarter of its cost on the files of FlashInfer + CUTLASS with no finding).
  ConstantLookup(const std::string& file, std::function<FileConstants()> read_own)
      : file_(file), read_own_(std::move(read_own)) {}
  static constexpr size_t kOutsideFunctions = SIZE_MAX;
  // `name` as code at byte `offset` of the file sees it: a constant of a function body holding
  // the offset first, then the file's own, then its includes'.
  std::optional<NamedConstant> Find(std::string_view name, size_t offset = kOutsideFunctions) const;

 private:
  const std::vector<std::shared_ptr<const HeaderFacts>>& Closure() const;
  const FileConstants& Own() const;

  std::string file_;
  mutable std::optional<FileConstants> own_;
  std::function<FileConstants()> read_own_;  // makes own_ when it is first needed
  mutable std::optional<std::vector<std::shared_ptr<const HeaderFacts>>> closure_;  // breadth-first order
  mutable std::map<std::string, std::optional<NamedConstant>, std::less<>> answers_;
};

// Headers read by every lookup so far, and those of them lexed for their constants (for tests and
// the cost figures).
size_t HeadersRead();
size_t HeadersLexed();

}  // namespace archpatch::cuda
