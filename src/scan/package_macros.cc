#include "scan/package_macros.h"

#include <algorithm>
#include <cctype>

namespace archpatch::scan {
namespace {

bool IdentifierByte(unsigned char c) { return std::isalnum(c) || c == '_'; }

}  // namespace

PerArchMacros ResolvePackageMacros(const std::map<std::string, std::vector<cuda::MacroDefinition>>& by_file,
                                   const std::vector<arch::Arch>& arches) {
  std::map<std::string, std::vector<Tri>> state;  // OR over the definitions
  for (const auto& [file, definitions] : by_file) {
    for (const cuda::MacroDefinition& d : definitions) {
      auto [it, added] = state.emplace(d.name, std::vector<Tri>(arches.size(), Tri::kFalse));
      for (size_t a = 0; a < arches.size() && a < d.where.size(); ++a) it->second[a] = TriOr(it->second[a], d.where[a]);
    }
  }
  PerArchMacros out;
  for (const auto& [name, where] : state) {
    if (std::all_of(where.begin(), where.end(), [&](Tri t) { return t == where.front(); })) continue;
    if (std::none_of(where.begin(), where.end(), [](Tri t) { return t == Tri::kFalse; })) continue;  // never known undefined
    auto& per_arch = out[name];
    for (size_t a = 0; a < arches.size(); ++a) per_arch[arches[a].name()] = where[a];
  }
  return out;
}

bool MentionsAnyName(std::string_view contents, const std::set<std::string, std::less<>>& names) {
  if (names.empty()) return false;
  for (size_t i = 0; i < contents.size();) {
    const unsigned char c = static_cast<unsigned char>(contents[i]);
    if (!IdentifierByte(c)) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < contents.size() && IdentifierByte(static_cast<unsigned char>(contents[j]))) ++j;
    if (!std::isdigit(c) && names.count(contents.substr(i, j - i))) return true;
    i = j;
  }
  return false;
}

}  // namespace archpatch::scan
