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

bool MentionsAnyName(std::string_view contents, const std::set<std::string, std::less<>>& names) {
  if (names.empty()) return false;
  // Most identifiers differ from every name in length or first or last byte: those skip the set.
  std::bitset<256> first, last;
  size_t shortest = SIZE_MAX, longest = 0;
  for (const std::string& name : names) {
    if (name.empty()) continue;
    first.set(static_cast<unsigned char>(name.front())), last.set(static_cast<unsigned char>(name.back()));
    shortest = std::min(shortest, name.size()), longest = std::max(longest, name.size());
  }
  bool found = false;
  ForEachIdentifier(contents, [&](std::string_view word, size_t) {
    found = word.size() >= shortest && word.size() <= longest && first[static_cast<unsigned char>(word.front())] &&
            last[static_cast<unsigned char>(word.back())] && names.count(word);
    return found;
  });
  return found;
}

}  // namespace archpatch::scan
