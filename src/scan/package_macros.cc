#include "scan/package_macros.h"

#include <algorithm>

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
      auto [it, added] = state.try_emplace(d.name, arches.size(), Tri::kFalse);
      for (size_t a = 0; a < arches.size() && a < d.where.size(); ++a) it->second[a] = TriOr(it->second[a], d.where[a]);
    }
  }
  // Resolved on the main thread between rounds: the arches' names are made once, not per macro.
  std::vector<std::string> names;
  for (const arch::Arch& a : arches) names.push_back(a.name());
  PerArchMacros out;
  for (const auto& [name, where] : state) {
    if (std::all_of(where.begin(), where.end(), [&](Tri t) { return t == where.front(); })) continue;
    if (std::none_of(where.begin(), where.end(), [](Tri t) { return t == Tri::kFalse; }))
      continue;  // never known undefined
    auto& per_arch = out[name];
    for (size_t a = 0; a < arches.size(); ++a) per_arch[names[a]] = where[a];
  }
  return out;
}

}  // namespace archpatch::scan
