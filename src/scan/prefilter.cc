#include "scan/prefilter.h"

#include <array>

#include "cuda/cxx_keywords.h"
#include "cuda/directives.h"
#include "cuda/runtime_gates.h"
#include "cuda/tokens.h"
#include "scan/prefilter_stops.h"
#include "util/byte_set.h"
#include "util/contains.h"
#include "util/identifier.h"

namespace archpatch::scan {
namespace {

constexpr bool IsIdentByte(unsigned char c) { return IsIdentifierChar(static_cast<char>(c)); }
struct CharTable {
  ByteSet ident = BytesWhere(IsIdentByte);
  // Neither an identifier's byte nor one a skip starts at.
  ByteSet passed = BytesWhere([](unsigned char c) { return !IsIdentByte(c) && c != '#' && c != '/' && c != '"'; });
};
constexpr CharTable kChars;

// The letters a capability name can start and end with, `_` aside and in either case (the normal
// form IsCapabilityName compares drops `_` and lowers letters; an `m` may lead, mSM): a test of two
// bytes per identifier before the exact one (a hash of every identifier's bytes, which it
// replaces, was most of the prefilter's inner loop).
class CapabilityEnds {
 public:
  CapabilityEnds() {
    Add(first_, 'm');
    for (std::string_view name : cuda::CapabilityNames()) Add(first_, name.front()), Add(last_, name.back());
  }
  bool MayBe(std::string_view id) const {
    size_t begin = 0, end = id.size();
    while (begin < end && id[begin] == '_') ++begin;
    while (end > begin && id[end - 1] == '_') --end;
    return begin < end && first_[static_cast<unsigned char>(id[begin])] &&
           last_[static_cast<unsigned char>(id[end - 1])];
  }

 private:
  static void Add(std::array<bool, 256>& set, char lower) {
    set[static_cast<unsigned char>(lower)] = set[static_cast<unsigned char>(lower - 'a' + 'A')] = true;
  }
  std::array<bool, 256> first_{}, last_{};
};
const CapabilityEnds kCapabilities;

bool IsArchName(std::string_view id) {
  for (std::string_view p : kArchPrefixes) {
    if (id.substr(0, p.size()) == p) return true;
  }
  for (std::string_view n : kArchNames) {
    if (id == n) return true;
  }
  return false;
}

bool IsNvTargetName(std::string_view id) {
  for (std::string_view n : kNvTargetNames) {
    if (id == n) return true;
  }
  return false;
}

// `name::` qualifies a namespace or class: never a capability value.
bool QualifiesScope(std::string_view s, size_t end) {
  while (end < s.size() && (s[end] == ' ' || s[end] == '\t')) ++end;
  return end + 1 < s.size() && s[end] == ':' && s[end + 1] == ':';
}

// `namespace name`: a declaration, never a capability value.
bool FollowsNamespace(std::string_view s, size_t start) {
  size_t end = start;
  while (end > 0 && (s[end - 1] == ' ' || s[end - 1] == '\t' || s[end - 1] == '\n')) --end;
  constexpr std::string_view kWord = "namespace";
  return end >= kWord.size() && s.substr(end - kWord.size(), kWord.size()) == kWord &&
         (end == kWord.size() || !kChars.ident[static_cast<unsigned char>(s[end - kWord.size() - 1])]);
}

// `Scope::Name declared`: a capability name after `::` and before a declared name is a type
// (CUTLASS's `GMMA::Major tnspA`, the whole of its 2.8 MB mma_sm90_gmma_ext.hpp), never a value:
// the byte form of cuda::MayBeValue's rule. Only blanks may sit around it here (a comment or a
// splice between keeps the name a candidate), and a keyword after it (`and`) is no declared name.
bool DeclaresWithQualifiedType(std::string_view s, size_t start, size_t end) {
  size_t before = start;
  while (before > 0 && (s[before - 1] == ' ' || s[before - 1] == '\t')) --before;
  // `a ? b :::x` and `%::x` lex as `::` `:` and `%:` `:`: no scope operator before the name.
  if (before < 2 || s[before - 1] != ':' || s[before - 2] != ':' ||
      (before > 2 && (s[before - 3] == ':' || s[before - 3] == '%')))
    return false;
  size_t next = end;
  while (next < s.size() && (s[next] == ' ' || s[next] == '\t' || s[next] == '\n' || s[next] == '\r')) ++next;
  const auto c = static_cast<unsigned char>(next < s.size() ? s[next] : '\0');
  if (!kChars.ident[c] || (c >= '0' && c <= '9')) return false;
  size_t word_end = next;
  while (word_end < s.size() && kChars.ident[static_cast<unsigned char>(s[word_end])]) ++word_end;
  if (word_end < s.size() && static_cast<unsigned char>(s[word_end]) >= 0x80) return false;  // a longer name
  return !cuda::IsCxxKeyword(s.substr(next, word_end - next));
}

// Whether the line before the one starting at `line` ends in a backslash: then `line` continues
// it (a string, a comment or a macro spliced across the newline).
bool ContinuesLine(std::string_view s, size_t line) {
  size_t end = line > 0 ? line - 1 : 0;  // the newline
  while (end > 0 && (s[end - 1] == ' ' || s[end - 1] == '\t' || s[end - 1] == '\r')) --end;
  return end > 0 && s[end - 1] == '\\';
}

// Where the line of `at` starts when only blanks come before `at` on it; npos otherwise.
size_t LineStartIfBlank(std::string_view s, size_t at) {
  size_t start = at;
  while (start > 0 && (s[start - 1] == ' ' || s[start - 1] == '\t' || s[start - 1] == '\r')) --start;
  return start == 0 || s[start - 1] == '\n' ? start : std::string_view::npos;
}

// Where the line of an `#include` at `hash` ends (no kind reads its names:
// cuda::StartsIncludeDirective); `hash` itself when the `#` starts no include line. A
// continuation line does not start with `#`: it is read as usual.
size_t IncludeLineEnd(std::string_view s, size_t hash) {
  if (LineStartIfBlank(s, hash) == std::string_view::npos || !cuda::StartsIncludeDirective(s.substr(hash))) return hash;
  return std::min(s.find('\n', hash), s.size());
}

// Where a comment that opens a line ends (`slash`: its first byte, the line's first but blanks),
// or `slash` when nothing can be skipped. At a line's start, outside a raw string (the caller
// checks the file has none) and a spliced line, the bytes are code or a block comment's: `//`
// there ends with the line unless a `*/` on it closes a block comment that code follows, and
// `/*` ends at the next `*/` either way (block comments do not nest). CUTLASS's "K-major"
// prose and "row-major" doc lines are most of its capability words.
size_t LeadingCommentEnd(std::string_view s, size_t slash, size_t line) {
  if (slash + 1 >= s.size() || ContinuesLine(s, line)) return slash;
  const size_t newline = std::min(s.find('\n', slash), s.size());
  if (s[slash + 1] == '/') {
    const std::string_view rest = s.substr(slash, newline - slash);
    return rest.find("*/") == std::string_view::npos ? newline : slash;
  }
  if (s[slash + 1] != '*') return slash;
  const size_t close = s.find("*/", slash + 2);
  return close == std::string_view::npos ? s.size() : close + 2;
}

// Where the line of `at` ends: its newline, or the end of `s`.
size_t LineEnd(std::string_view s, size_t at) { return std::min(s.find('\n', at), s.size()); }

// Where the string literal opened by the quote at `quote` closes on its line (a backslash escapes
// the byte after it), or npos: no closing quote before the line ends, or a backslash-newline,
// which continues the literal on the next line as the lexer reads it.
size_t StringClose(std::string_view s, size_t quote) {
  for (size_t q = quote + 1; q < s.size(); ++q) {
    const char c = s[q];
    if (c == '"') return q;
    if (c == '\n' || c == '\r') return std::string_view::npos;
    if (c == '\\') {
      if (q + 1 < s.size() && (s[q + 1] == '\n' || s[q + 1] == '\r')) return std::string_view::npos;
      ++q;
    }
  }
  return std::string_view::npos;
}

// Whether the line ending at `end` (its newline) ends in a backslash, blanks aside: a splice.
bool EndsInSplice(std::string_view s, size_t end) {
  while (end > 0 && (s[end - 1] == ' ' || s[end - 1] == '\t' || s[end - 1] == '\r')) --end;
  return end > 0 && s[end - 1] == '\\';
}

// String literals and the `//` comments after code, passed over where that is certain. The
// prefilter does not follow block comments or character literals: a quote in one of them could
// open what it takes for a string and close it in code. So a string is skipped only when its
// closing quote is on its line with no `*/` between, and its quote follows no `'` or backslash
// (`'"'`); a quote not skipped leaves the rest of its line read as code (`dirty_until`), and a
// literal continued past its line ends all skipping for the file. A `//` is skipped to its line's
// end when no quote before it on the line was left, and no `*/` follows it there.
class LiteralSkips {
 public:
  explicit LiteralSkips(std::string_view s) : s_(s), off_(cuda::MayHoldRawString(s)) {}
  bool off() const { return off_; }

  // Past the quote at `i`: past its string, or past the quote alone.
  size_t AfterQuote(size_t i) {
    if (!off_ && i >= dirty_until_ && (i == 0 || (s_[i - 1] != '\'' && s_[i - 1] != '\\'))) {
      const size_t close = StringClose(s_, i);
      if (close != std::string_view::npos && s_.substr(i, close - i).find("*/") == std::string_view::npos) {
        return close + 1;
      }
      if (close == std::string_view::npos && EndsInSplice(s_, LineEnd(s_, i))) off_ = true;
    }
    dirty_until_ = off_ ? s_.size() : LineEnd(s_, i);
    return i + 1;
  }

  // The end of the `//` comment after code at `slash`, or `slash` when it cannot be skipped.
  size_t TrailingCommentEnd(size_t slash) const {
    if (off_ || slash < dirty_until_ || (slash > 0 && s_[slash - 1] == '\'')) return slash;
    const size_t end = LineEnd(s_, slash);
    return s_.substr(slash, end - slash).find("*/") == std::string_view::npos ? end : slash;
  }

 private:
  std::string_view s_;
  bool off_;                // a raw string, or a literal spliced across a line: read whole
  size_t dirty_until_ = 0;  // the end of a line with a quote not skipped
};

}  // namespace

Prefilter::Prefilter(const cuda::MacroEnv& env) {
  // -D NAME=__CUDA_ARCH__... makes NAME arch-dependent: look for NAME too.
  for (const auto& [name, value] : env.defines) {
    for (std::string_view p : kArchPrefixes) {
      if (Contains(value, p)) extra_names_.push_back(name);
    }
    for (std::string_view n : kArchNames) {
      if (Contains(value, n)) extra_names_.push_back(name);
    }
  }
}

cuda::GateKinds Prefilter::Check(std::string_view s) const {
  bool complete = true;
  return Scan(s, /*until_directives=*/false, complete);
}

cuda::GateKinds Prefilter::CheckDirectivesFirst(std::string_view s, bool& complete) const {
  return Scan(s, /*until_directives=*/true, complete);
}

// One pass over the bytes, identifier by identifier (block comments that do not open a line and
// the literals LiteralSkips cannot pass over for certain included: a superset of what the
// scanners read), stopping once every analysis is known to be needed. Only the names that hold a
// trigger are read (prefilter_stops.h), unless a -D name, which may hold none, is looked for.
cuda::GateKinds Prefilter::Scan(std::string_view s, bool until_directives, bool& complete) const {
  complete = true;
  cuda::GateKinds kinds;
  kinds.directives = kinds.nv_target = kinds.runtime = false;
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const size_t n = s.size();
  // A raw string may hold lines that look like comments and are not: such a file is read whole.
  LiteralSkips literals(s);
  const bool skip_comments = !literals.off();
  const bool every_name = !extra_names_.empty();
  size_t i = 0;
  while (i < n) {
    const size_t from = i;  // never inside a name: a skip or a name ended before it
    i = every_name ? RunEnd(s, i, kChars.passed) : NextPrefilterStop(s, i);
    if (i == n) break;
    if (!kChars.ident[p[i]]) {
      // Skips go to the newline that ends what they skip.
      if (p[i] == '#') {
        i = std::max(IncludeLineEnd(s, i), i + 1);
      } else if (p[i] == '"') {
        i = literals.AfterQuote(i);
      } else if (p[i] == '/' && skip_comments && i + 1 < n && (p[i + 1] == '/' || p[i + 1] == '*')) {
        const size_t line = LineStartIfBlank(s, i);
        if (line != std::string_view::npos) {
          i = std::max(LeadingCommentEnd(s, i, line), i + 1);
        } else {
          i = p[i + 1] == '/' ? std::max(literals.TrailingCommentEnd(i), i + 2) : i + 2;
        }
      } else {
        ++i;
      }
      continue;
    }
    size_t start = i;
    while (start > from && kChars.ident[p[start - 1]]) --start;  // a trigger inside the name
    i = RunEnd(s, i, kChars.ident);
    std::string_view id = s.substr(start, i - start);
    if ((p[start] == '_' || p[start] == 'N') && id.size() >= 10) {
      if (!kinds.directives && IsArchName(id)) kinds.directives = true;
      if (!kinds.nv_target && IsNvTargetName(id)) kinds.nv_target = true;
    }
    // The byte test of a `name::` qualifier first: CUTLASS's `GMMA::Major::K`, thousands of times
    // a file, is a capability word IsCapabilityName would accept.
    if (!kinds.runtime && kCapabilities.MayBe(id) && !QualifiesScope(s, i) && cuda::IsCapabilityName(id) &&
        !FollowsNamespace(s, start) && !DeclaresWithQualifiedType(s, start, i)) {
      kinds.runtime = true;
    }
    if (!kinds.directives && !extra_names_.empty()) {
      for (const std::string& name : extra_names_) kinds.directives |= id == name;
    }
    if (kinds.directives && kinds.nv_target && kinds.runtime) break;
    if (until_directives && kinds.directives) {
      complete = false;
      break;
    }
  }
  return kinds;
}

}  // namespace archpatch::scan
