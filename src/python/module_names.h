// What the first pass of an audit keeps of a module for the package model: its file and the
// names it defines, calls and imports, as 64-bit hashes. Keeping every module's whole summary
// (a CallSite for every `if f(x):` of torch, every small def) was most of an environment audit's
// memory. The package model reaches a known value only through a gate, so from these names alone
// ModulesThatMatter finds (a superset of) the modules a resolution can pass through; the audit
// summarizes those again and gives the model an empty summary, file only, for the rest.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "python/module_summary.h"

namespace archpatch::python {

struct ModuleNames {
  struct Def {
    uint64_t name = 0;
    bool grounded = false;        // its returns test a gate of the module or a parameter
    std::vector<uint64_t> calls;  // last components of the callees in its returns
  };
  struct Import {
    uint64_t alias = 0, name = 0;  // `from m import name as alias`
  };
  std::string file;
  std::vector<Def> defs;
  std::vector<uint64_t> called;  // last components of the callees of the branch call sites
  std::vector<Import> imports;
  bool local_gate = false;  // a branch call site tests a gate of the module itself (bound names)
};

ModuleNames NamesOf(const ModuleSummary& summary);

// The files whose full summaries a resolution may need: where a live name is defined, imported
// or called, or a branch tests a local gate. A name is live when a def of that name is grounded,
// or calls a live name, or an import aliases a live name. By name, across modules: a superset.
std::set<std::string> ModulesThatMatter(const std::vector<ModuleNames>& modules);

}  // namespace archpatch::python
