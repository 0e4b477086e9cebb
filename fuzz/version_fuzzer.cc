// libFuzzer target for PEP 440: versions (from METADATA) and specifier sets (a rule's
// `versions`). The input's first line is a specifier set, the second a version. Nothing may
// crash or throw (std::stol on a 30-digit release used to), and the order must be consistent.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "env/version.h"

using namespace archpatch::env;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const size_t newline = text.find('\n');
  const std::string_view spec = text.substr(0, newline);
  const std::string_view version = newline == std::string_view::npos ? spec : text.substr(newline + 1);
  archpatch::Result<Version> v = ParseVersion(version);
  if (v) {
    if (CompareVersions(*v, *v) != 0) __builtin_trap();
    // The normal form parses to itself, unless normalising ("c" -> "rc0") took it over the bound
    // on what a version may be (found by this fuzzer: a 255-byte "2.2.4c.dev3+..." grows to 257).
    const std::string normal = v->str();
    if (normal.size() <= kMaxVersionBytes) {
      archpatch::Result<Version> again = ParseVersion(normal);
      if (!again || CompareVersions(*v, *again) != 0) __builtin_trap();
    }
  }
  archpatch::Result<SpecifierSet> set = SpecifierSet::Parse(spec);
  if (set) {
    (void)set->Contains(version);
    (void)set->Contains(version, /*allow_prereleases=*/true);
    (void)set->str();
  }
  return 0;
}
