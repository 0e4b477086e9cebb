// UnifiedDiff: `diff -u` output for one file, from an LCS of lines. Identical leading and
// trailing lines are trimmed first, so the quadratic table only covers the changed middle.
#include <algorithm>
#include <cstdint>

#include <fmt/format.h>

#include "plan/edit_plan.h"

namespace archpatch::plan {
namespace {

constexpr size_t kContext = 3;
constexpr size_t kMaxTableCells = 32u << 20;  // beyond this, the middle is one replacement

// Lines keep their '\n', so "x" (no final newline) and "x\n" differ as they should.
std::vector<std::string_view> SplitLines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    end = end == std::string_view::npos ? text.size() : end + 1;
    lines.push_back(text.substr(start, end - start));
    start = end;
  }
  return lines;
}

enum class Op : char { kEqual = ' ', kDelete = '-', kInsert = '+' };

struct Step {
  Op op;
  size_t a;  // line index in `before` (for kEqual/kDelete) or the position before which it goes
  size_t b;
};

// Orders each run of changes as DiffMiddle does: the deletions, then the insertions.
void AppendRun(std::vector<Step>& steps, size_t ai, size_t bi, size_t deleted, size_t inserted) {
  for (size_t t = 0; t < deleted; ++t) steps.push_back({Op::kDelete, ai + t, bi});
  for (size_t t = 0; t < inserted; ++t) steps.push_back({Op::kInsert, ai + deleted, bi + t});
}

// Myers' greedy shortest edit script (E. Myers, "An O(ND) Difference Algorithm", 1986), keeping
// each round's furthest reaching paths to walk back. False when D rounds would keep more than
// kMaxTableCells entries.
bool MyersMiddle(const std::vector<std::string_view>& a, const std::vector<std::string_view>& b, size_t a0, size_t a1,
                 size_t b0, size_t b1, std::vector<Step>& steps) {
  const long n = static_cast<long>(a1 - a0), m = static_cast<long>(b1 - b0), max = n + m;
  const size_t width = static_cast<size_t>(2 * max + 1);
  std::vector<long> v(width, 0);
  std::vector<std::vector<long>> trace;
  auto V = [&](std::vector<long>& of, long k) -> long& { return of[static_cast<size_t>(k + max)]; };
  long found = -1;
  for (long d = 0; d <= max && found < 0; ++d) {
    if ((trace.size() + 1) * width > kMaxTableCells) return false;
    trace.push_back(v);
    for (long k = -d; k <= d; k += 2) {
      long x = (k == -d || (k != d && V(v, k - 1) < V(v, k + 1))) ? V(v, k + 1) : V(v, k - 1) + 1;
      long y = x - k;
      while (x < n && y < m && a[a0 + x] == b[b0 + y]) ++x, ++y;
      V(v, k) = x;
      if (x >= n && y >= m) {
        found = d;
        break;
      }
    }
  }
  // Walk back from (n, m): per round one diagonal of equal lines and one deletion or insertion.
  struct Move {
    long x, y;
    bool insert;
  };
  std::vector<Move> moves;  // the non-diagonal steps, last first: where each starts
  long x = n, y = m;
  for (long d = found; d > 0; --d) {
    std::vector<long>& prev = trace[static_cast<size_t>(d)];
    const long k = x - y;
    const bool down = k == -d || (k != d && V(prev, k - 1) < V(prev, k + 1));  // down: an insertion
    const long from_k = down ? k + 1 : k - 1;
    x = V(prev, from_k), y = x - from_k;
    moves.push_back({x, y, down});
  }
  // Replay forward: equal lines up to each move, then the move; runs of moves grouped.
  std::reverse(moves.begin(), moves.end());
  long i = 0, j = 0;
  size_t at = 0;
  while (at < moves.size()) {
    while (i < moves[at].x && j < moves[at].y) steps.push_back({Op::kEqual, a0 + i++, b0 + j++});
    size_t deleted = 0, inserted = 0;
    while (at < moves.size() && moves[at].x == i + static_cast<long>(deleted) &&
           moves[at].y == j + static_cast<long>(inserted)) {
      (moves[at].insert ? inserted : deleted) += 1;
      ++at;
    }
    AppendRun(steps, a0 + i, b0 + j, deleted, inserted);
    i += static_cast<long>(deleted), j += static_cast<long>(inserted);
  }
  while (i < n && j < m) steps.push_back({Op::kEqual, a0 + i++, b0 + j++});
  return true;
}

// The edit script for a[a0, a1) -> b[b0, b1), deletions before insertions within a change.
void DiffMiddle(const std::vector<std::string_view>& a, const std::vector<std::string_view>& b, size_t a0, size_t a1,
                size_t b0, size_t b1, std::vector<Step>& steps) {
  const size_t n = a1 - a0, m = b1 - b0;
  if (n * m > kMaxTableCells) {
    // A long middle between the first and the last change (24 edits over an 8,000-line module):
    // Myers' O((n + m) D) script, one hunk per change; past its own budget, one replacement.
    if (MyersMiddle(a, b, a0, a1, b0, b1, steps)) return;
    for (size_t i = 0; i < n; ++i) steps.push_back({Op::kDelete, a0 + i, b0});
    for (size_t j = 0; j < m; ++j) steps.push_back({Op::kInsert, a1, b0 + j});
    return;
  }
  // lcs[i][j]: the LCS length of a[a0+i..a1) and b[b0+j..b1).
  std::vector<uint32_t> lcs((n + 1) * (m + 1), 0);
  auto at = [&](size_t i, size_t j) -> uint32_t& { return lcs[i * (m + 1) + j]; };
  for (size_t i = n; i-- > 0;) {
    for (size_t j = m; j-- > 0;) {
      at(i, j) = a[a0 + i] == b[b0 + j] ? at(i + 1, j + 1) + 1 : std::max(at(i + 1, j), at(i, j + 1));
    }
  }
  size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[a0 + i] == b[b0 + j] && at(i, j) == at(i + 1, j + 1) + 1) {
      steps.push_back({Op::kEqual, a0 + i++, b0 + j++});
    } else if (i < n && (j == m || at(i + 1, j) >= at(i, j + 1))) {
      steps.push_back({Op::kDelete, a0 + i++, b0 + j});
    } else {
      steps.push_back({Op::kInsert, a0 + i, b0 + j++});
    }
  }
}

std::vector<Step> EditScript(const std::vector<std::string_view>& a, const std::vector<std::string_view>& b) {
  size_t prefix = 0;
  while (prefix < a.size() && prefix < b.size() && a[prefix] == b[prefix]) ++prefix;
  size_t suffix = 0;
  while (suffix < a.size() - prefix && suffix < b.size() - prefix &&
         a[a.size() - 1 - suffix] == b[b.size() - 1 - suffix]) {
    ++suffix;
  }
  std::vector<Step> steps;
  for (size_t i = 0; i < prefix; ++i) steps.push_back({Op::kEqual, i, i});
  DiffMiddle(a, b, prefix, a.size() - suffix, prefix, b.size() - suffix, steps);
  for (size_t k = suffix; k > 0; --k) steps.push_back({Op::kEqual, a.size() - k, b.size() - k});
  return steps;
}

// "-start,count" as diff prints it: ",1" omitted; an empty range names the line before it.
std::string Range(size_t first, size_t count) {
  const size_t start = count == 0 ? first : first + 1;
  return count == 1 ? fmt::format("{}", start) : fmt::format("{},{}", start, count);
}

void PrintLine(std::string& out, char mark, std::string_view line) {
  out += mark;
  out.append(line);
  if (line.empty() || line.back() != '\n') out += "\n\\ No newline at end of file\n";
}

void PrintHunk(std::string& out, const std::vector<Step>& steps, size_t begin, size_t end,
               const std::vector<std::string_view>& a, const std::vector<std::string_view>& b) {
  size_t a_count = 0, b_count = 0;
  for (size_t k = begin; k < end; ++k) {
    a_count += steps[k].op != Op::kInsert;
    b_count += steps[k].op != Op::kDelete;
  }
  out += fmt::format("@@ -{} +{} @@\n", Range(steps[begin].a, a_count), Range(steps[begin].b, b_count));
  for (size_t k = begin; k < end; ++k) {
    const Step& s = steps[k];
    PrintLine(out, static_cast<char>(s.op), s.op == Op::kInsert ? b[s.b] : a[s.a]);
  }
}

}  // namespace

std::string UnifiedDiff(const std::string& path, std::string_view before, std::string_view after) {
  if (before == after) return "";
  const std::vector<std::string_view> a = SplitLines(before), b = SplitLines(after);
  const std::vector<Step> steps = EditScript(a, b);
  std::string out = fmt::format("--- a/{}\n+++ b/{}\n", path, path);
  size_t k = 0;
  while (k < steps.size()) {
    if (steps[k].op == Op::kEqual) {
      ++k;
      continue;
    }
    const size_t begin = k >= kContext ? k - kContext : 0;
    size_t end = k;
    while (true) {
      while (end < steps.size() && steps[end].op != Op::kEqual) ++end;
      size_t run = end;
      while (run < steps.size() && steps[run].op == Op::kEqual) ++run;
      if (run < steps.size() && run - end <= 2 * kContext) {
        end = run;  // the next change is close: same hunk
        continue;
      }
      end += std::min(kContext, run - end);
      break;
    }
    PrintHunk(out, steps, begin, end, a, b);
    k = end;
  }
  return out;
}

}  // namespace archpatch::plan
