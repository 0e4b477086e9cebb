#include "scan/lex_ahead.h"

#include <algorithm>

#include "cuda/directives.h"
#include "cuda/token_pieces.h"
#include "scan/file_bytes.h"

namespace archpatch::scan {
namespace {

// A job whose result (or exception) `future` gives, made by `make` on the thread that claims it.
template <class T, class Make>
std::shared_ptr<LexAheadJob> MakeJob(Make make, std::future<T>& future) {
  auto task = std::make_shared<std::packaged_task<T()>>(std::move(make));
  future = task->get_future();
  auto job = std::make_shared<LexAheadJob>();
  job->run = [task] { (*task)(); };
  return job;
}

// The bytes of a file lexed ahead, read once by whichever of its jobs runs first.
class AheadBytes {
 public:
  explicit AheadBytes(std::string path) : path_(std::move(path)) {}
  // nullptr when the file cannot be read (the findings round reads it and reports why).
  const FileBytes* Get() {
    std::call_once(once_, [this] { read_ = static_cast<bool>(bytes_.Load(path_)); });
    return read_ ? &bytes_ : nullptr;
  }

 private:
  const std::string path_;
  std::once_flag once_;
  FileBytes bytes_;
  bool read_ = false;
};

// The pieces of a file's lexing that other threads may run (cuda/token_pieces.h): piece k's
// tokens at k, its job and its end at k - 1 (piece 0 is the lexing job's own). The jobs share the
// tokens, not this: it holds them.
struct LexPieces {
  std::shared_ptr<std::vector<cuda::TokenPiece>> tokens;
  std::vector<std::shared_ptr<LexAheadJob>> jobs;
  std::vector<std::future<void>> done;
};

// What the prefilter finds in the file, on a thread of its own beside the lexing (on the lexing
// thread, before the lexing, it made the findings round wait up to 10 ms for CUTLASS's largest
// headers on 16 cores). A file that cannot be read needs every kind: the findings round reads it
// and reports why.
AheadKinds CheckFile(AheadBytes& bytes, const Prefilter& check) {
  const FileBytes* file = bytes.Get();
  if (!file) return AheadKinds{};
  const cuda::GateKinds found = check.Check(file->view());
  return AheadKinds{found.nv_target, found.runtime};
}

// The file's tokens, its functions and its directives (the findings round read those from the
// tokens again, on its longest files). Its first piece is lexed here, the others wherever a thread
// took them (here when none did), and the pieces joined; its directives are then `offer`ed to the
// threads that ask for work while its functions are found here (the two read the tokens alone).
std::optional<LexedFile> LexFile(const std::string& path, AheadBytes& bytes, LexPieces& pieces,
                                 const std::function<void(std::shared_ptr<LexAheadJob>)>& offer) {
  const FileBytes* file = bytes.Get();
  const std::string_view view = file ? file->view() : std::string_view();
  std::vector<cuda::TokenPiece>& tokens = *pieces.tokens;
  const size_t count = tokens.size();
  tokens[0] = cuda::LexPiece(view, 0, count);
  for (size_t k = 1; k < count; ++k) {
    if (pieces.jobs[k - 1]->Claim()) pieces.jobs[k - 1]->run();  // no thread has started it
    pieces.done[k - 1].get();
  }
  if (!file) return std::nullopt;  // the findings round reads it and reports why
  LexedFile out;
  out.size = view.size();
  out.tokens = cuda::JoinPieces(view, std::move(tokens));
  std::future<cuda::DirectiveScan> directives;
  const std::shared_ptr<LexAheadJob> read =
      MakeJob([&out, view, &path] { return cuda::ReadDirectives(out.tokens, view, path); }, directives);
  offer(read);
  out.functions = std::make_shared<const cuda::AllFunctions>(cuda::FindAllFunctions(out.tokens, view));
  if (read->Claim()) read->run();  // no thread has started it
  out.directives = std::make_shared<const cuda::DirectiveScan>(directives.get());
  return out;
}

}  // namespace

void LexAhead::Drain() {  // no round runs: nothing adds to lexed_
  std::lock_guard<std::mutex> lock(mutex_);
  pending_.clear();
  pending_count_ = 0;
  for (auto& [index, lexing] : lexed_) {
    // Claimed here, never run; claimed before, run by a worker that may still be at it.
    if (!lexing.lex->Claim()) lexing.lexed.wait();
    if (lexing.check && !lexing.check->Claim()) lexing.kinds.wait();
  }
  lexed_.clear();  // nothing left to take: the rounds are over
  used_ = 0;
}

bool LexAhead::Start(size_t index, const std::string& path, size_t size, std::optional<Prefilter> check) {
  if (size < from_) return false;
  std::lock_guard<std::mutex> lock(mutex_);
  if (used_ + size > kBudget || lexed_.count(index)) return false;
  used_ += size;
  Lexing& lexing = lexed_[index];
  lexing.reserved = size;
  // Run by a thread that asks for work (RunPending), or by the one that needs the result: threads
  // of their own, beside the sixteen workers on 16 cores, took 20-30 ms to lex a 2.8 MB header that
  // takes 7.5 alone.
  auto bytes = std::make_shared<AheadBytes>(path);
  if (check) {
    std::future<AheadKinds> kinds;
    lexing.check = MakeJob([bytes, check = std::move(*check)] { return CheckFile(*bytes, check); }, kinds);
    lexing.kinds = kinds.share();
    pending_.push_back(lexing.check);
  }
  // Its pieces before the job that joins them, so that the threads asking take them first.
  auto pieces = std::make_shared<LexPieces>();
  const size_t count = std::max<size_t>(1, (size + piece_bytes_ - 1) / piece_bytes_);
  pieces->tokens = std::make_shared<std::vector<cuda::TokenPiece>>(count);
  for (size_t k = 1; k < count; ++k) {
    pieces->done.emplace_back();
    pieces->jobs.push_back(MakeJob(
        [bytes, tokens = pieces->tokens, k] {
          if (const FileBytes* file = bytes->Get()) (*tokens)[k] = cuda::LexPiece(file->view(), k, tokens->size());
        },
        pieces->done.back()));
    pending_.push_back(pieces->jobs.back());
  }
  lexing.lex = MakeJob(
      [this, path, bytes, pieces] {
        return LexFile(path, *bytes, *pieces, [this](std::shared_ptr<Job> job) { Offer(std::move(job)); });
      },
      lexing.lexed);
  pending_.push_back(lexing.lex);
  pending_count_ = pending_.size();
  return true;
}

void LexAhead::Offer(std::shared_ptr<Job> job) {
  std::lock_guard<std::mutex> lock(mutex_);
  pending_.push_back(std::move(job));
  pending_count_ = pending_.size();
}

bool LexAhead::RunPending() {
  if (pending_count_ == 0) return false;
  std::shared_ptr<Job> job;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    while (!job && !pending_.empty()) {
      if (pending_.front()->Claim()) job = pending_.front();
      pending_.pop_front();
    }
    pending_count_ = pending_.size();
  }
  if (!job) return false;
  job->run();
  return true;
}

std::optional<AheadKinds> LexAhead::Kinds(size_t index) {
  std::shared_ptr<Job> check;
  std::shared_future<AheadKinds> kinds;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = lexed_.find(index);
    if (it == lexed_.end() || !it->second.kinds.valid()) return std::nullopt;
    check = it->second.check;
    kinds = it->second.kinds;
  }
  if (check->Claim()) check->run();  // no worker has started it
  return kinds.get();
}

std::optional<LexedFile> LexAhead::Take(size_t index) {
  Lexing lexing;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = lexed_.find(index);
    if (it == lexed_.end()) return std::nullopt;
    lexing = std::move(it->second);
    lexed_.erase(it);
  }
  if (lexing.lex->Claim()) lexing.lex->run();  // no worker has started it
  std::optional<LexedFile> out = lexing.lexed.get();
  std::lock_guard<std::mutex> lock(mutex_);
  used_ -= lexing.reserved;
  // The jobs the lexing ran itself are done, but each holds the file's bytes until dropped.
  pending_.erase(std::remove_if(pending_.begin(), pending_.end(), [](const auto& job) { return job->claimed.load(); }),
                 pending_.end());
  pending_count_ = pending_.size();
  return out;
}

}  // namespace archpatch::scan
