#include "scan/package_macros.h"

#include <algorithm>
#include <bitset>
#include <cctype>
#include <cstdint>

#include "util/identifier.h"

namespace archpatch::scan {

PerArchMacros ResolvePackageMacros(const std::map<std::string, std::vector<cuda::MacroDefinition>>& by_file,
                                   const std::vector<arch::Arch>& arches) {
  std::map<std::string, std::vector<Tri>> state;  // OR over the definitions
  for (const auto& [file, definitions] : by_file) {
    for (const cuda::MacroDefinition& d : definitions) {
      // nvcc decides these per pass; a package's #define of one is an IDE hint (FlashInfer's
      // xqa/cuda_hint.cuh: `#if IS_IN_IDE_PARSER ... #define __CUDA_ARCH_FEAT_SM90_ALL`), and
      // taking it made every test of the macro in the package false on sm_90a.
      if (cuda::IsCompilerMacro(d.name)) continue;
      auto [it, added] = state.emplace(d.name, std::vector<Tri>(arches.size(), Tri::kFalse));
      for (size_t a = 0; a < arches.size() && a < d.where.size(); ++a) it->second[a] = TriOr(it->second[a], d.where[a]);
    }
  }
  PerArchMacros out;
  for (const auto& [name, where] : state) {
    if (std::all_of(where.begin(), where.end(), [&](Tri t) { return t == where.front(); })) continue;
    if (std::none_of(where.begin(), where.end(), [](Tri t) { return t == Tri::kFalse; }))
      continue;  // never known undefined
    auto& per_arch = out[name];
    for (size_t a = 0; a < arches.size(); ++a) per_arch[arches[a].name()] = where[a];
  }
  return out;
}

namespace {

// A package's macros share a few first bytes (CUTE_ARCH_*, CUTLASS_ARCH_*): with at most this many,
// each byte's occurrences are found by memchr rather than every identifier of the file walked.
constexpr size_t kFewFirstBytes = 4;

// Whether an identifier that starts with a byte of `first` is one `is_name` takes. An occurrence
// starts an identifier where no identifier byte precedes it: the word there is the one
// ForEachIdentifier would give (a run inside a longer name or a number is no identifier).
template <class IsName>
bool MentionsAtFirstBytes(std::string_view text, const std::bitset<256>& first, IsName&& is_name) {
  for (int b = 0; b < 256; ++b) {
    if (!first[b]) continue;
    const char c = static_cast<char>(b);
    for (size_t at = text.find(c); at != std::string_view::npos; at = text.find(c, at + 1)) {
      if (at > 0 && IsIdentifierChar(text[at - 1])) continue;
      if (is_name(text.substr(at, IdentifierRunAt(text, at)))) return true;
    }
  }
  return false;
}

}  // namespace

bool MentionsAnyName(std::string_view contents, const std::set<std::string, std::less<>>& names) {
  if (names.empty()) return false;
  // Most identifiers differ from every name in length or first or last byte: those skip the set.
  std::bitset<256> first, last;
  size_t shortest = SIZE_MAX, longest = 0;
  for (const std::string& name : names) {
    // A name that starts with no identifier byte is never an identifier of the text.
    if (name.empty() || !IsIdentifierStart(name.front())) continue;
    first.set(static_cast<unsigned char>(name.front())), last.set(static_cast<unsigned char>(name.back()));
    shortest = std::min(shortest, name.size()), longest = std::max(longest, name.size());
  }
  auto is_name = [&](std::string_view word) {
    return word.size() >= shortest && word.size() <= longest && first[static_cast<unsigned char>(word.front())] &&
           last[static_cast<unsigned char>(word.back())] && names.count(word);
  };
  if (first.none()) return false;
  if (first.count() <= kFewFirstBytes) return MentionsAtFirstBytes(contents, first, is_name);
  bool found = false;
  ForEachIdentifier(contents, [&](std::string_view word, size_t) { return found = is_name(word); });
  return found;
}

}  // namespace archpatch::scan
