// The preprocessing tokens of a #if condition: backslash-newlines spliced, comments skipped, each
// token with its byte range in the text as written (so edits and carets point at real bytes).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace archpatch::cuda {

struct CondToken {
  enum class Kind { kNumber, kChar, kString, kIdentifier, kPunct, kOther };
  Kind kind = Kind::kOther;
  std::string text;           // spliced spelling ("__CUDA_ARCH__" even across a continuation)
  size_t begin = 0, end = 0;  // bytes in the original text, half-open
};

// Splits `text` into tokens. Errors (unterminated comment or literal) point at where it starts.
Result<std::vector<CondToken>> LexCondition(std::string_view text);

// 1-based line and column of byte `offset` of `text` (a backslash-newline starts a new line).
Location LocationOf(std::string_view text, size_t offset);

}  // namespace archpatch::cuda
