#include "scan/directive_store.h"

#include <algorithm>

#include "util/identifier.h"

namespace archpatch::scan {
namespace {

// About what the scan holds in memory.
size_t ApproximateBytes(const cuda::DirectiveScan& scan) {
  size_t bytes = sizeof scan;
  for (const cuda::DirectiveBranch& b : scan.branches) bytes += sizeof b + b.condition.capacity();
  for (const cuda::MacroDirective& m : scan.macros) bytes += sizeof m + m.name.capacity() + m.replacement.capacity();
  return bytes;
}

}  // namespace

void DirectiveStore::Keep(size_t index, std::shared_ptr<const cuda::DirectiveScan> scan, bool defines, bool whole) {
  if (!scan) return;
  const Known known = defines ? Known::kKept : Known::kNoDefinitions;
  const size_t bytes = ApproximateBytes(*scan);
  if (bytes_.fetch_add(bytes) + bytes > limit_) {
    bytes_ -= bytes;
    known_[index] = defines ? Known::kUnread : Known::kNoDefinitions;
    if (scans_[index]) bytes_ -= ApproximateBytes(*scans_[index]);
    scans_[index].reset();
    return;
  }
  if (scans_[index]) bytes_ -= ApproximateBytes(*scans_[index]);
  known_[index] = known;
  whole_[index] = whole;
  scans_[index] = std::move(scan);
}

bool DirectivesMention(const cuda::DirectiveScan& scan, const NameFilter& names) {
  for (const cuda::DirectiveBranch& b : scan.branches) {
    if (names.MentionedIn(b.condition)) return true;
  }
  for (const cuda::MacroDirective& m : scan.macros) {
    if (names.Has(m.name) || names.MentionedIn(m.replacement)) return true;
  }
  return false;
}

const std::vector<size_t>& DirectiveStore::LargestFirst() {
  if (largest_first_.size() == sizes_.size()) return largest_first_;
  largest_first_.resize(sizes_.size());
  for (size_t i = 0; i < largest_first_.size(); ++i) largest_first_[i] = i;
  std::stable_sort(largest_first_.begin(), largest_first_.end(),
                   [this](size_t a, size_t b) { return sizes_[a] > sizes_[b]; });
  return largest_first_;
}

}  // namespace archpatch::scan
