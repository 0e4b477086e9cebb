#include "scan/directive_names.h"

#include <algorithm>
#include <cstring>
#include <functional>

#include "util/identifier.h"

namespace archpatch::scan {
namespace {

uint32_t Hash(std::string_view name) { return static_cast<uint32_t>(std::hash<std::string_view>{}(name)); }

// Whether the physical line [begin, end) goes on into the next one: it ends in a backslash
// (blanks and a CR may follow it), or a block comment opened on it is still open at its end
// (`open` carries that from line to line; a `/*` inside a string only makes the superset larger).
bool Continues(std::string_view s, size_t begin, size_t end, bool& open) {
  for (size_t i = begin; i + 1 < end; ++i) {
    if (!open && s[i] == '/' && s[i + 1] == '*')
      open = true, ++i;
    else if (open && s[i] == '*' && s[i + 1] == '/')
      open = false, ++i;
  }
  size_t last = end;
  while (last > begin && (s[last - 1] == ' ' || s[last - 1] == '\t' || s[last - 1] == '\r')) --last;
  return open || (last > begin && s[last - 1] == '\\');
}

// The end of the directive-like region that starts with the line at `begin`.
size_t RegionEnd(std::string_view s, size_t begin) {
  bool open = false;
  while (true) {
    const size_t newline = std::min(s.find('\n', begin), s.size());
    if (newline == s.size() || !Continues(s, begin, newline, open)) return newline;
    begin = newline + 1;
  }
}

// The region as the lexer reads it (cuda/cxx_lexer.cc, clang's getEscapedNewLineSize): a
// backslash, horizontal blanks, then a newline (\n, \r, \r\n or \n\r) are spliced out, so
// `#def\<newline>ine` is a #define and `PKG_\<newline>A` one name. Most regions have no backslash
// and are returned as they are.
std::string_view WithoutSplices(std::string_view region, std::string& joined) {
  if (region.find('\\') == std::string_view::npos) return region;
  auto is = [&](size_t at, std::string_view bytes) {
    return at < region.size() && bytes.find(region[at]) != bytes.npos;
  };
  joined.clear();
  // The bytes between backslashes are copied whole (a byte at a time, CUTLASS's multi-line macros
  // were most of this pass's string work).
  size_t from = 0;
  for (size_t i = region.find('\\'); i != std::string_view::npos; i = region.find('\\', i + 1)) {
    size_t next = i + 1;
    while (is(next, " \t\f\v")) ++next;
    if (!is(next, "\n\r")) continue;  // a backslash that splices nothing stays
    joined.append(region.substr(from, i - from));
    i = is(next + 1, "\n\r") && region[next + 1] != region[next] ? next + 1 : next;
    from = i + 1;
  }
  joined.append(region.substr(std::min(from, region.size())));
  return joined;
}

bool MarksDirective(std::string_view s, size_t at) {
  return s[at] == '#' || (s[at] == '%' && at + 1 < s.size() && (s[at + 1] == ':' || s[at + 1] == '\\'));
}

// Whether `s` holds `%:` or `%\` (a digraph `#`, or one spliced across a line): one pass over its
// `%`s. A file without either has no `%` that starts a directive: its `%`s, four times as many as
// its `#`s in CUTLASS and FlashInfer (modulo operators), are not searched again.
bool MayHoldDigraph(std::string_view s) {
  for (size_t at = s.find('%'); at != std::string_view::npos && at + 1 < s.size(); at = s.find('%', at + 1)) {
    if (s[at + 1] == ':' || s[at + 1] == '\\') return true;
  }
  return false;
}

// The next `#` or `%` from `at`, or npos. string_view::find_first_of tries each of the set's
// bytes at every position; two memchr searches, each remembered until passed, run at memory speed.
class MarkFinder {
 public:
  explicit MarkFinder(std::string_view s)
      : s_(s), hash_(Find('#', 0)), percent_(MayHoldDigraph(s) ? Find('%', 0) : std::string_view::npos) {}
  size_t Next(size_t at) {
    if (hash_ < at) hash_ = Find('#', at);
    if (percent_ < at) percent_ = Find('%', at);
    return std::min(hash_, percent_);
  }

 private:
  size_t Find(char c, size_t at) const {
    const void* p = at < s_.size() ? std::memchr(s_.data() + at, c, s_.size() - at) : nullptr;
    return p ? static_cast<size_t>(static_cast<const char*>(p) - s_.data()) : std::string_view::npos;
  }
  std::string_view s_;
  size_t hash_, percent_;  // the next of each at or after the last search, npos when none is left
};

}  // namespace

DirectiveNames DirectiveNames::Of(std::string_view s) {
  DirectiveNames out;
  out.known_ = true;
  size_t at = 0;
  MarkFinder marks(s);
  std::string spliced;
  while (at < s.size()) {
    const size_t mark = marks.Next(at);
    if (mark == std::string_view::npos) break;
    if (!MarksDirective(s, mark)) {
      at = mark + 1;
      continue;
    }
    const size_t newline = s.rfind('\n', mark);
    const size_t line = newline == std::string_view::npos ? 0 : newline + 1;
    const size_t end = RegionEnd(s, line);
    ForEachIdentifier(WithoutSplices(s.substr(line, end - line), spliced), [&](std::string_view name, size_t) {
      out.hashes_.push_back(Hash(name));
      out.defines_ = out.defines_ || name == "define";
      if (name == "define" || name == "undef") out.definitions_end_ = std::min(end + 1, s.size());
      return false;
    });
    at = end;
  }
  std::sort(out.hashes_.begin(), out.hashes_.end());
  out.hashes_.erase(std::unique(out.hashes_.begin(), out.hashes_.end()), out.hashes_.end());
  out.hashes_.shrink_to_fit();
  return out;
}

DirectiveNames::Wanted::Wanted(const std::set<std::string, std::less<>>& names) {
  for (const std::string& name : names) hashes_.push_back(Hash(name));
}

bool DirectiveNames::MayMention(const Wanted& names) const {
  if (!known_) return true;
  return std::any_of(names.hashes_.begin(), names.hashes_.end(),
                     [&](uint32_t hash) { return std::binary_search(hashes_.begin(), hashes_.end(), hash); });
}

}  // namespace archpatch::scan
