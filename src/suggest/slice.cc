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

// Every line in exactly one unit, in order (0-based, half-open line ranges).
struct Unit {
  size_t first = 0;  // 0-based lines [first, end)
  size_t end = 0;
  int depth = -1;
};

// Every line in exactly one unit, in order.
std::vector<Unit> Cover(size_t lines, const std::vector<LineUnit>& units) {
  std::vector<Unit> out;
  size_t next = 0;
  for (const LineUnit& u : units) {
    const size_t first = static_cast<size_t>(std::max(u.first, 1)) - 1;
    const size_t last = std::min(static_cast<size_t>(std::max(u.last, u.first)), lines);
    if (first < next || first >= last) continue;  // overlapping or empty: its lines stay single
    for (; next < first; ++next) out.push_back({next, next + 1, -1});
    out.push_back({first, last, u.depth});
    next = last;
  }
  for (; next < lines; ++next) out.push_back({next, next + 1, -1});
  return out;
}

class Slicer {
 public:
  Slicer(std::vector<std::string_view> lines, std::vector<Unit> units, const SamePlaces& same, size_t max_tries)
      : lines_(std::move(lines)),
        units_(std::move(units)),
        kept_(units_.size(), true),
        same_(same),
        tries_left_(max_tries) {}

  // Tries to drop every unit of `runs` at once.
  bool DropAll(const std::vector<std::pair<size_t, size_t>>& runs) {
    if (tries_left_ == 0) return false;
    std::vector<bool> before = kept_;
    for (const auto& [begin, end] : runs) std::fill(kept_.begin() + begin, kept_.begin() + end, false);
    --tries_left_;
    if (same_(Text())) return true;
    kept_ = std::move(before);
    return false;
  }

  // Tries to drop units [begin, end); on failure, each half in turn.
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
    for (size_t u = 0; u < units_.size(); ++u) {
      if (!kept_[u]) continue;
      for (size_t i = units_[u].first; i < units_[u].end; ++i) out += lines_[i];
    }
    if (!out.empty() && out.back() != '\n') out += '\n';
    return out;
  }

  // The unit holding 0-based line `line`.
  size_t UnitOf(size_t line) const {
    auto it = std::upper_bound(units_.begin(), units_.end(), line, [](size_t l, const Unit& u) { return l < u.first; });
    return static_cast<size_t>(it - units_.begin()) - 1;
  }

  // The units `unit` is nested in: going back, each one less indented than the last.
  std::vector<size_t> Enclosing(size_t unit) const {
    std::vector<size_t> out;
    int depth = units_[unit].depth;
    for (size_t u = unit; u-- > 0 && depth > 0;) {
      if (units_[u].depth >= 0 && units_[u].depth < depth) {
        out.push_back(u);
        depth = units_[u].depth;
      }
    }
    return out;
  }

  size_t units() const { return units_.size(); }

 private:
  std::vector<std::string_view> lines_;
  std::vector<Unit> units_;
  std::vector<bool> kept_;
  const SamePlaces& same_;
  size_t tries_left_;
};

}  // namespace

std::string SliceAroundGates(std::string_view contents, const std::vector<int>& gate_lines, const SamePlaces& same,
                             const std::vector<LineUnit>& units, const SliceOptions& options) {
  std::vector<std::string_view> lines = SplitLines(contents);
  const size_t line_count = lines.size();
  Slicer slicer(std::move(lines), Cover(line_count, units), same, options.max_tries);
  std::vector<bool> near(slicer.units(), false);
  for (int line : gate_lines) {
    if (line < 1 || static_cast<size_t>(line) > line_count) continue;
    const long unit = static_cast<long>(slicer.UnitOf(static_cast<size_t>(line - 1)));
    const long first = std::max<long>(0, unit - options.context);
    const long last = std::min<long>(static_cast<long>(slicer.units()) - 1, unit + options.context);
    for (long i = first; i <= last; ++i) near[static_cast<size_t>(i)] = true;
    for (size_t u : slicer.Enclosing(static_cast<size_t>(unit))) near[u] = true;
  }
  // Runs of units far from every gate, from the end of the file to its start.
  std::vector<std::pair<size_t, size_t>> runs;
  for (size_t i = 0; i < near.size();) {
    if (near[i]) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < near.size() && !near[j]) ++j;
    runs.emplace_back(i, j);
    i = j;
  }
  if (slicer.DropAll(runs)) return slicer.Text();  // one try, enough when the structure is known
  for (auto it = runs.rbegin(); it != runs.rend(); ++it) slicer.Drop(it->first, it->second);
  return slicer.Text();
}

}  // namespace archpatch::suggest
