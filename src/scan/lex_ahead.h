// The largest C/C++ files lexed ahead of the findings round, beside the package-macro rounds.
//
// On 16 cores the findings round ended on CUTLASS's two 2.8-2.9 MB mma_sm90_gmma*_ext.hpp
// headers, 35-48 ms each on one worker while the others were done after 20-33 ms; their lexing
// and their functions (a third of that) do not depend on the package's macros. When the first
// read finds such a file with a branch the findings round may keep, a thread of its own lexes it
// and finds its functions while the read round ends and the macros settle (workers mostly idle);
// the findings round takes them instead of making them.
//
// Such a file's first read also stops its prefilter at the first arch name (about 6 of the 14
// ms its first read took on one worker, the round's longest): a thread of its own, beside the
// lexing one, looks for the kinds the findings round needs besides (nv/target.h macros, runtime
// checks).
#pragma once

#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "cuda/directives.h"
#include "cuda/functions.h"
#include "cuda/tokens.h"
#include "scan/prefilter.h"

namespace archpatch::scan {

struct LexedFile {
  size_t size = 0;  // of the bytes lexed: a file changed since is lexed again
  std::vector<cuda::Token> tokens;
  std::shared_ptr<const cuda::AllFunctions> functions;
  // Its directives, read from the tokens: the first read keeps those of the file's prefix that
  // holds its definitions alone (DirectiveNames::DefinitionsEnd).
  std::shared_ptr<const cuda::DirectiveScan> directives;
};

// What the prefilter finds in a file lexed ahead besides its directives (Prefilter::Check's).
struct AheadKinds {
  bool nv_target = true, runtime = true;
};

class LexAhead {
 public:
  // At most this many bytes of sources lexed ahead at once (their tokens are 3-4 times as many
  // bytes): CUTLASS's two largest headers.
  static constexpr size_t kBudget = 8 << 20;

  // Files of at least `from` bytes are lexed ahead (AuditOptions::lex_ahead_from).
  explicit LexAhead(size_t from) : from_(from) {}
  LexAhead(const LexAhead&) = delete;
  LexAhead& operator=(const LexAhead&) = delete;
  ~LexAhead() { Drain(); }
  // Waits for the threads still lexing or checking a file (before the object is left to the
  // process's end, which must find none of them running).
  void Drain();

  // Whether a file of `size` bytes is large enough to be lexed ahead.
  bool Takes(size_t size) const { return size >= from_; }
  // Starts lexing file `index` (`path`, `size` bytes) on a thread of its own when it is large
  // enough and the budget allows; false when it does not. With `check`, a thread of its own runs
  // it over the bytes (Kinds).
  bool Start(size_t index, const std::string& path, size_t size, std::optional<Prefilter> check = std::nullopt);
  // The kinds the `check` given to Start found, waited for (before Take); nullopt when the file
  // was started without one. A file that could not be read needs every kind: the findings round
  // reads it and reports why.
  std::optional<AheadKinds> Kinds(size_t index);
  // The file lexed ahead, waited for; nullopt when it was not (or could not be read).
  std::optional<LexedFile> Take(size_t index);

 private:
  const size_t from_;
  std::mutex mutex_;  // guards what follows
  size_t used_ = 0;   // bytes of the files lexed ahead and not taken yet
  struct Lexing {
    size_t reserved;  // of used_
    std::future<std::optional<LexedFile>> lexed;
    std::shared_future<AheadKinds> kinds;  // invalid without a check
  };
  std::map<size_t, Lexing> lexed_;  // by file index
};

}  // namespace archpatch::scan
