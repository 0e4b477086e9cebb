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
  for (auto& [index, lexing] : lexed_) {
    if (lexing.lexed.valid()) lexing.lexed.wait();
    if (lexing.kinds.valid()) lexing.kinds.wait();
  }
}

bool LexAhead::Start(size_t index, const std::string& path, size_t size, std::optional<Prefilter> check) {
  if (size < from_) return false;
  std::lock_guard<std::mutex> lock(mutex_);
  if (used_ + size > kBudget || lexed_.count(index)) return false;
  used_ += size;
  Lexing& lexing = lexed_[index];
  lexing.reserved = size;
  if (check) {
    lexing.kinds =
        std::async(std::launch::async, [path, check = std::move(*check)] { return CheckFile(path, check); }).share();
  }
  lexing.lexed = std::async(std::launch::async, LexFile, path);
  return true;
}

std::optional<AheadKinds> LexAhead::Kinds(size_t index) {
  std::shared_future<AheadKinds> kinds;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = lexed_.find(index);
    if (it == lexed_.end() || !it->second.kinds.valid()) return std::nullopt;
    kinds = it->second.kinds;
  }
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
  std::optional<LexedFile> out = lexing.lexed.get();
  std::lock_guard<std::mutex> lock(mutex_);
  used_ -= lexing.reserved;
  return out;
}

}  // namespace archpatch::scan
