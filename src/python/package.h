// The Python package model: built once per audit from the summaries of every module scanned
// (imports, predicate defs, branch calls), it resolves a call such as `is_sm100a_supported(dev)`
// or `utils.is_sm100_supported()` through the importing module's own imports (so that where one
// name means different things in different modules, the import actually used decides), through
// re-exports and nested predicates (cached, safe on cycles), and reports each branch whose
// resolved value keeps an arch out, with the chain it went through in `via`.
// See docs/python-gates.md, "The package model".
#pragma once

#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "arch/arch.h"
#include "python/module_summary.h"
#include "gate/finding.h"

namespace archpatch::python {

class PackageModel {
 public:
  PackageModel(std::vector<ModuleSummary> modules, const std::vector<arch::Arch>& arches);

  // One finding (kind python-gate, shape predicate-call or bound-condition) per branch call
  // whose value is known for at least one arch.
  std::vector<Finding> BranchFindings();

  size_t predicate_count() const;

  // Drops from `findings` the comparisons bound to a local name (`is_sm100 = cc in ((10, 0),)`)
  // that some branch in `resolved` uses: the assignment means what its uses do, and a use that
  // is a fallback keeps nobody out. (A predicate def's own comparison stays: it is the one place
  // to patch for all its callers.)
  static void DropBoundComparisons(std::vector<Finding>& findings, const std::vector<Finding>& resolved);

 private:
  struct Value {
    std::vector<Tri> holds;
    std::vector<gate::Place> via;
  };
  struct DefRef {
    size_t module = npos;
    size_t def = npos;
  };
  static constexpr size_t npos = static_cast<size_t>(-1);

  size_t FindModule(size_t from, int level, const std::string& dotted) const;
  DefRef ResolveName(size_t module, const std::string& name, int depth) const;
  DefRef ResolveCallee(size_t module, const std::string& callee) const;
  Value Evaluate(size_t module, const CondExpr& e, const std::vector<Literal>* args, int depth);
  Value EvaluateDef(DefRef ref, const std::vector<Literal>& args, int depth);
  Value Uniform(Tri t) const { return Value{std::vector<Tri>(arches_.size(), t), {}}; }
  gate::Place ViaEntry(size_t module, const Place& place, const std::string& name) const;

  std::vector<ModuleSummary> modules_;
  const std::vector<arch::Arch>& arches_;
  std::unordered_map<std::string, size_t> by_path_;               // file -> module
  std::unordered_map<std::string, std::vector<size_t>> by_stem_;  // "utils" -> modules
  std::map<std::pair<size_t, size_t>, Value> cache_;              // argument-free defs
  std::map<std::pair<size_t, size_t>, bool> in_progress_;
};

}  // namespace archpatch::python
