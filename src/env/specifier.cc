// PEP 440 specifier sets, following the reference implementation (pypa/packaging) operator by
// operator. docs/rules.md says how pre-releases are treated for an installed version.
#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "env/version.h"

namespace archpatch::env {
namespace {

constexpr std::string_view kOperators[] = {"===", "~=", "==", "!=", "<=", ">=", "<", ">"};

std::string_view Trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

bool EndsWithWildcard(std::string_view v) { return v.size() >= 2 && v.substr(v.size() - 2) == ".*"; }

Version Public(Version v) {
  v.local.clear();
  return v;
}

Version Base(const Version& v) {
  Version base;
  base.epoch = v.epoch;
  base.release = v.release;
  return base;
}

// "==1.2.*": the epoch matches and the release, padded with zeros, starts with 1.2.
bool PrefixMatches(const Version& candidate, const Version& prefix) {
  if (candidate.epoch != prefix.epoch) return false;
  std::vector<long> release = candidate.release;
  if (release.size() < prefix.release.size()) release.resize(prefix.release.size(), 0);
  return std::equal(prefix.release.begin(), prefix.release.end(), release.begin());
}

bool Equal(const Version& candidate, std::string_view spec) {
  if (EndsWithWildcard(spec)) {
    return PrefixMatches(candidate, *ParseVersion(spec.substr(0, spec.size() - 2)));
  }
  const Version wanted = *ParseVersion(spec);
  // Without a local label in the specifier, the candidate's local label is ignored.
  return CompareVersions(wanted.local.empty() ? Public(candidate) : candidate, wanted) == 0;
}

// "~=2.2.1" means ">=2.2.1, ==2.2.*".
bool Compatible(const Version& candidate, std::string_view spec) {
  const Version wanted = *ParseVersion(spec);
  Version prefix = Base(wanted);
  prefix.release.pop_back();
  return CompareVersions(Public(candidate), wanted) >= 0 && PrefixMatches(candidate, prefix);
}

bool Less(const Version& candidate, std::string_view spec) {
  const Version wanted = *ParseVersion(spec);
  if (CompareVersions(Public(candidate), wanted) >= 0) return false;
  // "<1.0" does not admit 1.0rc1: a pre-release of the bound itself is not "less" unless the
  // specifier is a pre-release.
  return wanted.is_prerelease() || !candidate.is_prerelease() || CompareVersions(Base(candidate), Base(wanted)) != 0;
}

bool Greater(const Version& candidate, std::string_view spec) {
  const Version wanted = *ParseVersion(spec);
  if (CompareVersions(Public(candidate), wanted) <= 0) return false;
  // ">1.0" does not admit 1.0.post1 (unless the specifier is a post-release) nor 1.0+local.
  if (!wanted.is_postrelease() && candidate.is_postrelease() && CompareVersions(Base(candidate), Base(wanted)) == 0) {
    return false;
  }
  return candidate.local.empty() || CompareVersions(Base(candidate), Base(wanted)) != 0;
}

bool Holds(const Specifier& s, const Version& candidate, std::string_view raw) {
  if (s.op == "===") {
    std::string a(Trim(raw)), b = s.version;
    auto lower = [](std::string& x) {
      for (char& c : x) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    };
    lower(a), lower(b);
    return a == b;
  }
  if (s.op == "==") return Equal(candidate, s.version);
  if (s.op == "!=") return !Equal(candidate, s.version);
  if (s.op == "~=") return Compatible(candidate, s.version);
  if (s.op == "<") return Less(candidate, s.version);
  if (s.op == ">") return Greater(candidate, s.version);
  const int c = CompareVersions(Public(candidate), *ParseVersion(s.version));
  return s.op == "<=" ? c <= 0 : c >= 0;
}

// Whether the specifier names a pre-release and so lets pre-releases in (any operator but !=,
// as pypa/packaging decides).
bool AdmitsPrereleases(const Specifier& s) {
  if (s.op == "!=" || s.op == "===") return false;
  std::string_view v = s.version;
  if (EndsWithWildcard(v)) v.remove_suffix(2);
  Result<Version> parsed = ParseVersion(v);
  return parsed && parsed->is_prerelease();
}

Status CheckSpecifier(const Specifier& s) {
  if (s.op == "===") {
    if (s.version.empty() || s.version.find_first_of(" \t") != std::string::npos) {
      return Error{fmt::format("'==={}' needs a version without spaces", s.version), {}};
    }
    return Ok{};
  }
  std::string_view v = s.version;
  const bool wildcard = EndsWithWildcard(v);
  if (wildcard) v.remove_suffix(2);
  Result<Version> parsed = ParseVersion(v);
  if (!parsed) return Error{fmt::format("'{}{}': {}", s.op, s.version, parsed.error().message), {}};
  const bool equality = s.op == "==" || s.op == "!=";
  if (wildcard && (!equality || parsed->is_prerelease() || parsed->post || !parsed->local.empty())) {
    return Error{fmt::format("'{}{}': '.*' is allowed only after a release with == or !=", s.op, s.version), {}};
  }
  if (!equality && !parsed->local.empty()) {
    return Error{fmt::format("'{}{}': a local version label is allowed only with == or !=", s.op, s.version), {}};
  }
  if (s.op == "~=" && parsed->release.size() < 2) {
    return Error{fmt::format("'~={}': '~=' needs at least two release numbers (~=1.4)", s.version), {}};
  }
  return Ok{};
}

}  // namespace

Result<SpecifierSet> SpecifierSet::Parse(std::string_view text) {
  SpecifierSet set;
  if (Trim(text).empty()) return set;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string_view::npos) comma = text.size();
    std::string_view item = Trim(text.substr(start, comma - start));
    start = comma + 1;
    const auto op = std::find_if(std::begin(kOperators), std::end(kOperators),
                                 [&](std::string_view o) { return item.substr(0, o.size()) == o; });
    if (op == std::end(kOperators)) {
      return Error{fmt::format("'{}' in '{}' is not a version specifier (>=1.0, <2, ~=1.4, ==1.*, "
                               "!=1.3.0rc1)",
                               item, text),
                   {}};
    }
    Specifier s{std::string(*op), std::string(Trim(item.substr(op->size())))};
    if (Status ok = CheckSpecifier(s); !ok) return ok.error();
    set.specifiers_.push_back(std::move(s));
  }
  return set;
}

bool SpecifierSet::Admits(const Version& version, std::string_view raw, bool allow_prereleases) const {
  const bool named = std::any_of(specifiers_.begin(), specifiers_.end(), AdmitsPrereleases);
  if (version.is_prerelease() && !allow_prereleases && !named) return false;
  return std::all_of(specifiers_.begin(), specifiers_.end(),
                     [&](const Specifier& s) { return Holds(s, version, raw); });
}

bool SpecifierSet::Contains(const Version& version, bool allow_prereleases) const {
  return Admits(version, version.str(), allow_prereleases);
}

bool SpecifierSet::Contains(std::string_view version, bool allow_prereleases) const {
  Result<Version> parsed = ParseVersion(version);
  if (parsed) return Admits(*parsed, version, allow_prereleases);
  // Not PEP 440: only '===' can match it, by its exact text.
  return !specifiers_.empty() && std::all_of(specifiers_.begin(), specifiers_.end(), [&](const Specifier& s) {
    return s.op == "===" && Trim(version) == s.version;
  });
}

std::string SpecifierSet::str() const {
  std::vector<std::string> parts;
  for (const Specifier& s : specifiers_) parts.push_back(s.op + s.version);
  return fmt::format("{}", fmt::join(parts, ","));
}

}  // namespace archpatch::env
