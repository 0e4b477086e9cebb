// The largest C/C++ files lexed ahead of the findings round, beside the package-macro rounds.
//
// On 16 cores the findings round ended on CUTLASS's two 2.8-2.9 MB mma_sm90_gmma*_ext.hpp
// headers, 35-48 ms each on one worker while the others were done after 20-33 ms; their lexing
// and their functions (a third of that) do not depend on the package's macros. When the first
// read finds such a file with a branch the findings round may keep, it asks for the file to be
// lexed and its functions found; the workers that scan Python modules while the package's macros
// settle do it first (RunPending), and the findings round takes them instead of making them (or
// makes them itself when no worker got to them). A thread of its own for each file, started at
// the first read beside the sixteen busy workers, took 20-30 ms for what takes 7.5 alone, and the
// findings round waited for it up to 11 ms (2026-12-07 timelines); the first read's own workers
// would make the round wait for the lexing instead. The lexing itself is cut in pieces of half a
// megabyte, each a job (cuda/token_pieces.h): the workers that take them lex a file together,
// and the job that joins them finds its functions and directives.
//
// Such a file's first read also stops its prefilter at the first arch name (about 6 of the 14
// ms its first read took on one worker, the round's longest): the rest of the prefilter's pass,
// for the kinds the findings round needs besides (nv/target.h macros, runtime checks), is asked
// for beside the lexing, and run the same way.
#pragma once

#include <algorithm>
#include <atomic>
#include <deque>
#include <functional>
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

// A piece of LexAhead's work (a file's check, a piece of its lexing, or the lexing that joins the
// pieces), done once, by whoever claims it first.
struct LexAheadJob {
  std::function<void()> run;  // fulfils its future
  std::atomic<bool> claimed{false};
  bool Claim() { return !claimed.exchange(true); }
};

class LexAhead {
 public:
  // At most this many bytes of sources lexed ahead at once (their tokens are 3-4 times as many
  // bytes): CUTLASS's two largest headers.
  static constexpr size_t kBudget = 8 << 20;

  // A file is lexed in pieces of about this many bytes, each a job of its own
  // (cuda/token_pieces.h): one thread lexing a whole 2.8 MB header ended the findings round.
  static constexpr size_t kPieceBytes = 512 << 10;

  // Files of at least `from` bytes are lexed ahead (AuditOptions::lex_ahead_from), in pieces of
  // `piece_bytes`.
  explicit LexAhead(size_t from, size_t piece_bytes = kPieceBytes)
      : from_(from), piece_bytes_(std::max<size_t>(1, piece_bytes)) {}
  LexAhead(const LexAhead&) = delete;
  LexAhead& operator=(const LexAhead&) = delete;
  ~LexAhead() { Drain(); }
  // Waits for the work a worker is still doing for a file and drops what none has started, once the
  // rounds are over (before the object is left to the process's end, which must find none of it
  // running): nothing can be taken after it.
  void Drain();

  // Whether a file of `size` bytes is large enough to be lexed ahead.
  bool Takes(size_t size) const { return size >= from_; }
  // Asks for file `index` (`path`, `size` bytes) to be lexed when it is large enough and the
  // budget allows; false when it does not. With `check`, that prefilter is run over its bytes too
  // (Kinds). Nothing runs here: RunPending runs the work, else Kinds and Take do.
  bool Start(size_t index, const std::string& path, size_t size, std::optional<Prefilter> check = std::nullopt);
  // Runs one piece of the work asked for and not started yet (a file's check, a piece of its
  // lexing, the lexing that joins the pieces, or its directives), on the calling thread. False
  // when none is left.
  bool RunPending();
  // The kinds the `check` given to Start found, waited for (or found here when no worker has
  // started it); nullopt when the file was started without one. A file that could not be read
  // needs every kind: the findings round reads it and reports why.
  std::optional<AheadKinds> Kinds(size_t index);
  // The file lexed ahead, waited for (or lexed here when no worker has started it); nullopt when
  // it was not asked for (or could not be read).
  std::optional<LexedFile> Take(size_t index);

 private:
  using Job = LexAheadJob;
  // Adds work that a job found to do (its file's directives, read beside its functions).
  void Offer(std::shared_ptr<Job> job);

  const size_t from_, piece_bytes_;
  std::atomic<size_t> pending_count_{0};  // pending_.size(), read without the lock
  std::mutex mutex_;                      // guards what follows
  size_t used_ = 0;                       // bytes of the files lexed ahead and not taken yet
  std::deque<std::shared_ptr<Job>> pending_;
  struct Lexing {
    size_t reserved;  // of used_
    std::shared_ptr<Job> lex, check;
    std::future<std::optional<LexedFile>> lexed;
    std::shared_future<AheadKinds> kinds;  // invalid without a check
  };
  std::map<size_t, Lexing> lexed_;  // by file index
};

}  // namespace archpatch::scan
