#include "suggest/slice.h"

#include <algorithm>

namespace archpatch::suggest {
namespace {

// The file's lines, each with its line end ("a\n", "b\n", "c" for "a\nb\nc").
std::vector<std::string_view> SplitLines(std::string_view contents) {
  std::vector<std::string_view> lines;
  for (size_t at = 0; at < contents.size();) {
    size_t end = contents.find('\n', at);
    end = end == std::string_view::npos ? contents.size() : end + 1;
    lines.push_back(contents.substr(at, end - at));
    at = end;
  }
  return lines;
}

class Slicer {
 public:
  Slicer(std::vector<std::string_view> lines, const SamePlaces& same, size_t max_tries)
      : lines_(std::move(lines)), kept_(lines_.size(), true), same_(same), tries_left_(max_tries) {}

  // Tries to drop lines [begin, end); on failure, each half in turn.
  void Drop(size_t begin, size_t end) {
    if (begin >= end || tries_left_ == 0) return;
    std::vector<bool> before = kept_;
    std::fill(kept_.begin() + begin, kept_.begin() + end, false);
    --tries_left_;
    if (same_(Text())) return;
    kept_ = std::move(before);
    if (end - begin == 1) return;
    const size_t mid = begin + (end - begin) / 2;
    Drop(mid, end);  // the later half first: a block's closing lines come after its head
    Drop(begin, mid);
  }

  std::string Text() const {
    std::string out;
    for (size_t i = 0; i < lines_.size(); ++i) {
      if (kept_[i]) out += lines_[i];
    }
    if (!out.empty() && out.back() != '\n') out += '\n';
    return out;
  }

  size_t size() const { return lines_.size(); }

 private:
  std::vector<std::string_view> lines_;
  std::vector<bool> kept_;
  const SamePlaces& same_;
  size_t tries_left_;
};

}  // namespace

std::string SliceAroundGates(std::string_view contents, const std::vector<int>& gate_lines, const SamePlaces& same,
                             const SliceOptions& options) {
  Slicer slicer(SplitLines(contents), same, options.max_tries);
  std::vector<bool> near(slicer.size(), false);
  for (int line : gate_lines) {
    const long first = std::max<long>(0, line - 1 - options.context);
    const long last = std::min<long>(static_cast<long>(slicer.size()) - 1, line - 1 + options.context);
    for (long i = first; i <= last; ++i) near[static_cast<size_t>(i)] = true;
  }
  // Runs of lines far from every gate, from the end of the file to its start.
  std::vector<std::pair<size_t, size_t>> runs;
  for (size_t i = 0; i < near.size();) {
    if (near[i]) { ++i; continue; }
    size_t j = i;
    while (j < near.size() && !near[j]) ++j;
    runs.emplace_back(i, j);
    i = j;
  }
  for (auto it = runs.rbegin(); it != runs.rend(); ++it) slicer.Drop(it->first, it->second);
  return slicer.Text();
}

}  // namespace archpatch::suggest
