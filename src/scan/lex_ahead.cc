#include "scan/lex_ahead.h"

#include "cuda/directives.h"
#include "scan/file_bytes.h"

namespace archpatch::scan {
namespace {

// What the prefilter finds in the file, on a thread of its own beside the lexing (on the lexing
// thread, before the lexing, it made the findings round wait up to 10 ms for CUTLASS's largest
// headers on 16 cores). A file that cannot be read needs every kind: the findings round reads it
// and reports why.
AheadKinds CheckFile(const std::string& path, const Prefilter& check) {
  FileBytes file;
  if (!file.Load(path)) return AheadKinds{};
  const cuda::GateKinds found = check.Check(file.view());
  return AheadKinds{found.nv_target, found.runtime};
}

// The file's tokens, its functions and its directives (the findings round read those from the
// tokens again, on its longest files).
std::optional<LexedFile> LexFile(const std::string& path) {
  FileBytes file;
  if (!file.Load(path)) return std::nullopt;  // the findings round reads it and reports why
  LexedFile out;
  out.size = file.view().size();
  out.tokens = cuda::Tokenize(file.view());
  out.functions = std::make_shared<const cuda::AllFunctions>(cuda::FindAllFunctions(out.tokens, file.view()));
  out.directives = std::make_shared<const cuda::DirectiveScan>(cuda::ReadDirectives(out.tokens, file.view(), path));
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

}  // namespace

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
  if (check) {
    std::future<AheadKinds> kinds;
    lexing.check = MakeJob([path, check = std::move(*check)] { return CheckFile(path, check); }, kinds);
    lexing.kinds = kinds.share();
    pending_.push_back(lexing.check);
  }
  lexing.lex = MakeJob([path] { return LexFile(path); }, lexing.lexed);
  pending_.push_back(lexing.lex);
  pending_count_ = pending_.size();
  return true;
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
  return out;
}

}  // namespace archpatch::scan
