#include "env/version.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <initializer_list>

#include <fmt/format.h>

namespace archpatch::env {
namespace {

std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

char PreKind(const std::string& label) {
  if (label == "a" || label == "alpha") return 'a';
  if (label == "b" || label == "beta") return 'b';
  return 'c';  // c, rc, pre, preview
}

// A cursor over PEP 440's permissive form (Appendix B's regular expression), read by hand in one
// pass: std::regex recursed per character on user input and std::stol threw on long numbers.
//   v? (N!)? N(.N)* ([-_.]?(a|b|c|rc|alpha|beta|pre|preview)[-_.]?N?)?
//   (-N | [-_.]?(post|rev|r)[-_.]?N?)? ([-_.]?dev[-_.]?N?)? (+[a-z0-9]+([-_.][a-z0-9]+)*)?
struct VersionReader {
  std::string_view text;  // lowercase, trimmed
  size_t at = 0;
  bool overflow = false;

  bool Peek(char c) const { return at < text.size() && text[at] == c; }
  bool Digit() const { return at < text.size() && std::isdigit(static_cast<unsigned char>(text[at])); }
  bool Separator() {
    if (at < text.size() && (text[at] == '-' || text[at] == '_' || text[at] == '.')) return ++at, true;
    return false;
  }
  // Digits as a number; false when there are none.
  bool Number(long& out) {
    if (!Digit()) return false;
    out = 0;
    for (; Digit(); ++at) {
      const int d = text[at] - '0';
      if (out > (LONG_MAX - d) / 10)
        overflow = true;
      else
        out = out * 10 + d;
    }
    return true;
  }
  // The longest of `labels` at the cursor.
  std::string_view Label(std::initializer_list<std::string_view> labels) {
    std::string_view best;
    for (std::string_view l : labels) {
      if (text.substr(at, l.size()) == l && l.size() > best.size()) best = l;
    }
    at += best.size();
    return best;
  }
  // [-_.]? LABEL [-_.]? N? ; restores the cursor when no label follows.
  std::string_view Tagged(std::initializer_list<std::string_view> labels, long& number) {
    const size_t start = at;
    Separator();
    std::string_view label = Label(labels);
    if (label.empty()) {
      at = start;
      return {};
    }
    const size_t before_separator = at;
    Separator();
    if (!Number(number)) {
      number = 0;
      if (at != before_separator && at < text.size() && std::isalpha(static_cast<unsigned char>(text[at]))) {
        at = before_separator;  // the separator belongs to what follows ("1.0a.post1")
      }
    }
    return label;
  }
  bool Local(std::string& out) {
    auto alnum = [&] { return at < text.size() && std::isalnum(static_cast<unsigned char>(text[at])); };
    if (!Peek('+')) return true;
    ++at;
    for (;;) {
      if (!alnum()) return false;
      while (alnum()) out += text[at++];
      if (!(Peek('-') || Peek('_') || Peek('.'))) return true;
      out += '.';
      ++at;
    }
  }
};

bool ReadVersion(VersionReader& r, Version& v) {
  if (r.Peek('v')) ++r.at;
  long first = 0;
  if (!r.Number(first)) return false;
  if (r.Peek('!')) {
    ++r.at;
    if (first > INT_MAX) return false;
    v.epoch = static_cast<int>(first);
    if (!r.Number(first)) return false;
  }
  v.release.push_back(first);
  while (r.Peek('.') && r.at + 1 < r.text.size() && std::isdigit(static_cast<unsigned char>(r.text[r.at + 1]))) {
    ++r.at;
    long part = 0;
    r.Number(part);
    v.release.push_back(part);
  }
  long number = 0;
  if (std::string_view pre = r.Tagged({"a", "b", "c", "rc", "alpha", "beta", "pre", "preview"}, number); !pre.empty()) {
    v.pre_kind = PreKind(std::string(pre));
    v.pre_number = number;
  }
  const size_t before_post = r.at;
  if (r.Peek('-') && (++r.at, r.Number(number))) {
    v.post = number;  // "1.0-1" is a post-release
  } else {
    r.at = before_post;
    if (!r.Tagged({"post", "rev", "r"}, number).empty()) v.post = number;
  }
  if (!r.Tagged({"dev"}, number).empty()) v.dev = number;
  return r.Local(v.local) && r.at == r.text.size() && !r.overflow;
}

std::vector<long> StripTrailingZeros(std::vector<long> release) {
  while (release.size() > 1 && release.back() == 0) release.pop_back();
  return release;
}

// PEP 440's sort order for the "pre" slot: a dev-only release sorts before every pre-release
// (1.0.dev0 < 1.0a0), a final release after all of them.
int PreRank(const Version& v) {
  if (!v.pre_kind && !v.post && v.dev) return -1;
  if (!v.pre_kind) return 4;
  return v.pre_kind == 'a' ? 1 : v.pre_kind == 'b' ? 2 : 3;
}

bool IsNumber(const std::string& s) {
  return !s.empty() &&
         std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

// Local labels: numeric parts sort above alphanumeric ones; a longer label with an equal
// prefix sorts higher; no label sorts lowest.
int CompareLocal(const std::string& a, const std::string& b) {
  if (a == b) return 0;
  if (a.empty() || b.empty()) return a.empty() ? -1 : 1;
  auto split = [](const std::string& s) {
    std::vector<std::string> parts;
    size_t start = 0;
    while (start <= s.size()) {
      size_t dot = s.find('.', start);
      if (dot == std::string::npos) dot = s.size();
      parts.push_back(s.substr(start, dot - start));
      start = dot + 1;
    }
    return parts;
  };
  auto pa = split(a), pb = split(b);
  for (size_t i = 0; i < std::min(pa.size(), pb.size()); ++i) {
    const bool na = IsNumber(pa[i]), nb = IsNumber(pb[i]);
    if (na != nb) return na ? 1 : -1;
    if (na) {
      // As numbers of any length: without leading zeros, the shorter is smaller.
      std::string_view x = pa[i], y = pb[i];
      x.remove_prefix(std::min(x.find_first_not_of('0'), x.size()));
      y.remove_prefix(std::min(y.find_first_not_of('0'), y.size()));
      if (x.size() != y.size()) return x.size() < y.size() ? -1 : 1;
      if (x != y) return x < y ? -1 : 1;
    } else if (pa[i] != pb[i]) {
      return pa[i] < pb[i] ? -1 : 1;
    }
  }
  return pa.size() == pb.size() ? 0 : (pa.size() < pb.size() ? -1 : 1);
}

template <typename T>
int Cmp(const T& a, const T& b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

}  // namespace

std::string Version::str() const {
  std::string out = epoch ? fmt::format("{}!", epoch) : "";
  out += fmt::format("{}", fmt::join(release, "."));
  if (pre_kind) out += fmt::format("{}{}", *pre_kind == 'c' ? "rc" : std::string(1, *pre_kind), pre_number);
  if (post) out += fmt::format(".post{}", *post);
  if (dev) out += fmt::format(".dev{}", *dev);
  if (!local.empty()) out += "+" + local;
  return out;
}

Result<Version> ParseVersion(std::string_view text) {
  if (text.size() > kMaxVersionBytes) {
    return Error{fmt::format("version '{}...' is longer than {} bytes", text.substr(0, 32), kMaxVersionBytes), {}};
  }
  const std::string lower = Lower(text);
  std::string_view trimmed = lower;
  while (!trimmed.empty() && std::isspace(static_cast<unsigned char>(trimmed.front()))) trimmed.remove_prefix(1);
  while (!trimmed.empty() && std::isspace(static_cast<unsigned char>(trimmed.back()))) trimmed.remove_suffix(1);
  VersionReader reader{trimmed};
  Version v;
  if (!ReadVersion(reader, v)) {
    return Error{
        fmt::format("'{}' is not a PEP 440 version{}", text, reader.overflow ? " (a number is too large)" : ""), {}};
  }
  return v;
}

int CompareVersions(const Version& a, const Version& b) {
  if (int c = Cmp(a.epoch, b.epoch)) return c;
  if (int c = Cmp(StripTrailingZeros(a.release), StripTrailingZeros(b.release))) return c;
  if (int c = Cmp(PreRank(a), PreRank(b))) return c;
  if (a.pre_kind) {
    if (int c = Cmp(a.pre_number, b.pre_number)) return c;
  }
  // No post sorts below any post; no dev sorts above any dev.
  if (int c = Cmp(a.post ? *a.post : -1L, b.post ? *b.post : -1L)) return c;
  if (int c = Cmp(a.dev ? *a.dev : LONG_MAX, b.dev ? *b.dev : LONG_MAX)) return c;
  return CompareLocal(a.local, b.local);
}

}  // namespace archpatch::env
