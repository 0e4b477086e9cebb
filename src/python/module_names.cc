#include "python/module_names.h"

#include <algorithm>
#include <functional>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace archpatch::python {
namespace {

uint64_t Hash(std::string_view name) { return std::hash<std::string_view>{}(name); }

uint64_t LastComponent(const std::string& dotted) {
  const size_t dot = dotted.rfind('.');
  return Hash(dot == std::string::npos ? std::string_view(dotted) : std::string_view(dotted).substr(dot + 1));
}

// Collects the callees of `e` and whether it tests a gate or a parameter.
void Walk(const CondExpr& e, std::vector<uint64_t>& calls, bool& grounded) {
  if (e.kind == CondExpr::Kind::kGate || e.kind == CondExpr::Kind::kParamTest) grounded = true;
  if (e.kind == CondExpr::Kind::kCall) calls.push_back(LastComponent(e.callee));
  for (const CondExpr& kid : e.kids) Walk(kid, calls, grounded);
}

void SortUnique(std::vector<uint64_t>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

bool AnyIn(const std::vector<uint64_t>& names, const std::unordered_set<uint64_t>& live) {
  return std::any_of(names.begin(), names.end(), [&](uint64_t n) { return live.count(n) > 0; });
}

}  // namespace

ModuleNames NamesOf(const ModuleSummary& summary) {
  ModuleNames out;
  out.file = summary.file;
  for (const PredicateDef& def : summary.predicates) {
    ModuleNames::Def d;
    d.name = Hash(def.name);
    Walk(def.last, d.calls, d.grounded);
    for (const auto& [c, r] : def.early) Walk(c, d.calls, d.grounded), Walk(r, d.calls, d.grounded);
    SortUnique(d.calls);
    out.defs.push_back(std::move(d));
  }
  for (const CallSite& site : summary.calls) Walk(site.call, out.called, out.local_gate);
  SortUnique(out.called);
  for (const ImportBinding& b : summary.imports) {
    if (!b.name.empty()) out.imports.push_back({Hash(b.alias), Hash(b.name)});
  }
  return out;
}

std::set<std::string> ModulesThatMatter(const std::vector<ModuleNames>& modules) {
  // A worklist over "name -> the names that become live with it": linear in the names.
  std::unordered_map<uint64_t, std::vector<uint64_t>> makes_live;
  std::vector<uint64_t> work;
  for (const ModuleNames& m : modules) {
    for (const ModuleNames::Def& d : m.defs) {
      if (d.grounded) work.push_back(d.name);
      for (uint64_t callee : d.calls) makes_live[callee].push_back(d.name);
    }
    for (const ModuleNames::Import& i : m.imports) makes_live[i.name].push_back(i.alias);
  }
  std::unordered_set<uint64_t> live;
  while (!work.empty()) {
    const uint64_t name = work.back();
    work.pop_back();
    if (!live.insert(name).second) continue;
    if (auto it = makes_live.find(name); it != makes_live.end())
      work.insert(work.end(), it->second.begin(), it->second.end());
  }
  std::set<std::string> out;
  for (const ModuleNames& m : modules) {
    const bool defines = std::any_of(m.defs.begin(), m.defs.end(), [&](const auto& d) { return live.count(d.name); });
    const bool imports =
        std::any_of(m.imports.begin(), m.imports.end(), [&](const auto& i) { return live.count(i.name); });
    if (m.local_gate || defines || imports || AnyIn(m.called, live)) out.insert(m.file);
  }
  return out;
}

}  // namespace archpatch::python
