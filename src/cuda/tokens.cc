#include "cuda/tokens.h"

#include <algorithm>
#include <cstring>

namespace archpatch::cuda {

bool HasLineBreak(std::string_view gap) {
  for (size_t i = 0; i < gap.size(); ++i) {
    if (gap[i] != '\n') continue;
    size_t j = i;
    if (j > 0 && gap[j - 1] == '\r') --j;
    if (j == 0 || gap[j - 1] != '\\') return true;
  }
  return false;
}

// By its quotes: memmem's two-way search for `R"` was a tenth of the prefilter, and a source
// holds far fewer quotes than `R`s.
bool MayHoldRawString(std::string_view s) {
  for (size_t at = 1; at < s.size(); ++at) {
    const void* quote = std::memchr(s.data() + at, '"', s.size() - at);
    if (!quote) return false;
    at = static_cast<size_t>(static_cast<const char*>(quote) - s.data());
    if (s[at - 1] == 'R') return true;
  }
  return false;
}

LineIndex::LineIndex(std::string_view contents) {
  starts_.reserve(contents.size() / 32 + 1);  // lines of CUDA and C++ average 30-40 bytes
  for (size_t i = contents.find('\n'); i != std::string_view::npos; i = contents.find('\n', i + 1)) {
    starts_.push_back(static_cast<uint32_t>(i + 1));
  }
}

int LineIndex::Line(size_t offset) const {
  auto it = std::upper_bound(starts_.begin(), starts_.end(), offset);
  return static_cast<int>(it - starts_.begin());
}

int LineIndex::Column(size_t offset) const { return static_cast<int>(offset - starts_[Line(offset) - 1]) + 1; }

size_t LineIndex::LineStart(int line) const {
  if (line < 1) return 0;
  if (line > line_count()) return starts_.back();
  return starts_[line - 1];
}

}  // namespace archpatch::cuda
