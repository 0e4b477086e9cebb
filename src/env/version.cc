#include "env/version.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <regex>

#include <fmt/format.h>

namespace archpatch::env {
namespace {

// PEP 440's permissive form (Appendix B), case-insensitive.
const std::regex& VersionPattern() {
  static const std::regex pattern(
      R"(^\s*v?(?:([0-9]+)!)?([0-9]+(?:\.[0-9]+)*))"
      R"(([-_.]?(a|b|c|rc|alpha|beta|pre|preview)[-_.]?([0-9]+)?)?)"
      R"(((?:-([0-9]+))|(?:[-_.]?(post|rev|r)[-_.]?([0-9]+)?))?)"
      R"(([-_.]?(dev)[-_.]?([0-9]+)?)?)"
      R"((?:\+([a-z0-9]+(?:[-_.][a-z0-9]+)*))?\s*$)",
      std::regex::icase | std::regex::ECMAScript);
  return pattern;
}

std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

long Number(const std::ssub_match& m) { return m.matched ? std::stol(m.str()) : 0; }

char PreKind(const std::string& label) {
  if (label == "a" || label == "alpha") return 'a';
  if (label == "b" || label == "beta") return 'b';
  return 'c';  // c, rc, pre, preview
}

std::vector<long> ParseRelease(const std::string& text) {
  std::vector<long> release;
  size_t start = 0;
  while (start <= text.size()) {
    size_t dot = text.find('.', start);
    if (dot == std::string::npos) dot = text.size();
    release.push_back(std::stol(text.substr(start, dot - start)));
    start = dot + 1;
  }
  return release;
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
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
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
      long x = std::stol(pa[i]), y = std::stol(pb[i]);
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
  std::smatch m;
  const std::string input(text);
  if (!std::regex_match(input, m, VersionPattern())) {
    return Error{fmt::format("'{}' is not a PEP 440 version", text), {}};
  }
  Version v;
  v.epoch = static_cast<int>(Number(m[1]));
  v.release = ParseRelease(m[2].str());
  if (m[3].matched) {
    v.pre_kind = PreKind(Lower(m[4].str()));
    v.pre_number = Number(m[5]);
  }
  if (m[6].matched) v.post = m[7].matched ? Number(m[7]) : Number(m[9]);  // "1.0-1" is a post
  if (m[10].matched) v.dev = Number(m[12]);
  if (m[13].matched) {
    v.local = Lower(m[13].str());
    std::replace_if(v.local.begin(), v.local.end(), [](char c) { return c == '-' || c == '_'; }, '.');
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
