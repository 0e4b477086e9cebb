// libFuzzer target for rule `file:` globs: GlobMatch (linear time, position sets) must agree with
// a slow reference written straight from the documented meaning (dynamic programming over
// pattern and path), and answer quickly whatever the pattern. Input: "PATTERN\nPATH".
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "env/glob.h"

namespace {

// The documented semantics, by memoised recursion: '*' any run without '/', '**' any run, "**/"
// also nothing at all, '?' one non-'/' character, [..] a class of one non-'/' character (an
// unclosed '[' is a character).
struct Reference {
  std::string_view p, s;
  std::vector<signed char> memo;

  size_t ClassEnd(size_t i, bool& matched, char c) const {
    size_t j = i + 1;
    bool negate = false;
    if (j < p.size() && (p[j] == '!' || p[j] == '^')) negate = true, ++j;
    const size_t first = j;
    bool in = false;
    for (; j < p.size() && (p[j] != ']' || j == first); ++j) {
      if (j + 2 < p.size() && p[j + 1] == '-' && p[j + 2] != ']') {
        in |= p[j] <= c && c <= p[j + 2];
        j += 2;
      } else {
        in |= p[j] == c;
      }
    }
    if (j >= p.size()) return std::string_view::npos;
    matched = c != '/' && in != negate;
    return j + 1;
  }

  bool Match(size_t i, size_t k) {
    signed char& m = memo[i * (s.size() + 1) + k];
    if (m >= 0) return m;
    m = Compute(i, k);
    return m;
  }

  bool Compute(size_t i, size_t k) {
    if (i == p.size()) return k == s.size();
    if (p[i] == '*') {
      size_t run = i;
      while (run < p.size() && p[run] == '*') ++run;
      const bool globstar = run - i >= 2;
      if (globstar && run < p.size() && p[run] == '/' && Match(run + 1, k)) return true;
      for (size_t n = k;; ++n) {
        if (Match(run, n)) return true;
        if (n == s.size() || (!globstar && s[n] == '/')) return false;
      }
    }
    if (k == s.size()) return false;
    if (p[i] == '?') return s[k] != '/' && Match(i + 1, k + 1);
    if (p[i] == '[') {
      bool matched = false;
      const size_t end = ClassEnd(i, matched, s[k]);
      if (end != std::string_view::npos) return matched && Match(end, k + 1);
    }
    return p[i] == s[k] && Match(i + 1, k + 1);
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const size_t newline = text.find('\n');
  if (newline == std::string_view::npos) return 0;
  const std::string_view pattern = text.substr(0, newline), path = text.substr(newline + 1);
  const bool fast = archpatch::env::GlobMatch(pattern, path);
  if (pattern.size() > 512 || path.size() > 512) return 0;  // the reference is quadratic in memory
  Reference ref{pattern, path, std::vector<signed char>((pattern.size() + 1) * (path.size() + 1), -1)};
  if (fast != ref.Match(0, 0)) __builtin_trap();
  return 0;
}
