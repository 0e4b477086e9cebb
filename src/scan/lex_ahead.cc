#include "scan/lex_ahead.h"

#include "scan/file_bytes.h"

namespace archpatch::scan {
namespace {

// The lexing thread's work: the kinds `check` finds (the findings round waits for them first),
// then the tokens and functions.
std::optional<LexedFile> LexFile(const std::string& path, std::optional<Prefilter> check,
                                 std::promise<AheadKinds> kinds) {
  FileBytes file;
  if (!file.Load(path)) {  // the findings round reads it and reports why
    if (check) kinds.set_value(AheadKinds{});
    return std::nullopt;
  }
  if (check) {
    const cuda::GateKinds found = check->Check(file.view());
    kinds.set_value(AheadKinds{found.nv_target, found.runtime});
  }
  LexedFile out;
  out.size = file.view().size();
  out.tokens = cuda::Tokenize(file.view());
  out.functions = std::make_shared<const cuda::AllFunctions>(cuda::FindAllFunctions(out.tokens, file.view()));
  return out;
}

}  // namespace

LexAhead::~LexAhead() {
  for (auto& [index, lexing] : lexed_) {
    if (lexing.lexed.valid()) lexing.lexed.wait();
  }
}

bool LexAhead::Start(size_t index, const std::string& path, size_t size, std::optional<Prefilter> check) {
  if (size < from_) return false;
  std::lock_guard<std::mutex> lock(mutex_);
  if (used_ + size > kBudget || lexed_.count(index)) return false;
  used_ += size;
  Lexing& lexing = lexed_[index];
  lexing.reserved = size;
  std::promise<AheadKinds> kinds;
  if (check) lexing.kinds = kinds.get_future().share();
  lexing.lexed = std::async(std::launch::async, LexFile, path, std::move(check), std::move(kinds));
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
