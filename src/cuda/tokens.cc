#include "cuda/tokens.h"

#include <algorithm>

namespace archpatch::cuda {

LineIndex::LineIndex(std::string_view contents) {
  for (size_t i = contents.find('\n'); i != std::string_view::npos; i = contents.find('\n', i + 1)) {
    starts_.push_back(i + 1);
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
