// PEP 440 versions and specifier sets: "does the installed version satisfy the rule's range".
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace archpatch::env {

struct Version {
  int epoch = 0;
  std::vector<long> release;     // 1.2.3
  std::optional<char> pre_kind;  // 'a', 'b' or 'c' (rc)
  long pre_number = 0;
  std::optional<long> post;  // .post1, -1
  std::optional<long> dev;   // .dev0
  std::string local;         // "+cu128" without '+', normalised (lowercase, '.' separated)

  bool is_prerelease() const { return pre_kind.has_value() || dev.has_value(); }
  bool is_postrelease() const { return post.has_value(); }
  std::string str() const;  // the normalised form: "1.0rc1.post2.dev3+abc"
};

// Versions longer than this are refused (the longest on PyPI are well under 100 bytes).
inline constexpr size_t kMaxVersionBytes = 256;

Result<Version> ParseVersion(std::string_view text);
// <0, 0, >0 per PEP 440's ordering (local labels compared too).
int CompareVersions(const Version& a, const Version& b);

struct Specifier {
  std::string op;       // "==", "!=", "<=", ">=", "<", ">", "~=", "==="
  std::string version;  // as written, "0.3.*" kept
};

// A comma-separated set: every specifier must hold. "" is the set that admits every version.
class SpecifierSet {
 public:
  static Result<SpecifierSet> Parse(std::string_view text);

  // Whether `version` satisfies every specifier. Pre-releases are admitted only when a specifier
  // names one ("!=0.3.0rc1" does not count: only inclusive ones) or when allow_prereleases.
  bool Contains(const Version& version, bool allow_prereleases = false) const;
  bool Contains(std::string_view version, bool allow_prereleases = false) const;

  const std::vector<Specifier>& specifiers() const { return specifiers_; }
  std::string str() const;

 private:
  bool Admits(const Version& version, std::string_view raw, bool allow_prereleases) const;
  std::vector<Specifier> specifiers_;
};

}  // namespace archpatch::env
