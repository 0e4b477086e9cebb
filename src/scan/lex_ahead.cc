#include "scan/lex_ahead.h"

#include "scan/file_bytes.h"

namespace archpatch::scan {

LexAhead::~LexAhead() {
  for (auto& [index, lexing] : lexed_) {
    if (lexing.lexed.valid()) lexing.lexed.wait();
  }
}

bool LexAhead::Start(size_t index, const std::string& path, size_t size) {
  if (size < from_) return false;
  std::lock_guard<std::mutex> lock(mutex_);
  if (used_ + size > kBudget || lexed_.count(index)) return false;
  used_ += size;
  lexed_[index].reserved = size;
  lexed_[index].lexed = std::async(std::launch::async, [path]() -> std::optional<LexedFile> {
    FileBytes file;
    if (!file.Load(path)) return std::nullopt;  // the findings round reads it and reports why
    LexedFile out;
    out.size = file.view().size();
    out.tokens = cuda::Tokenize(file.view());
    out.functions = std::make_shared<const cuda::AllFunctions>(cuda::FindAllFunctions(out.tokens, file.view()));
    return out;
  });
  return true;
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
