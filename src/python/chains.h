// If/elif chains and the branch an arch takes in them. `if is_sm10x: a() elif is_sm120: b()`
// keeps nobody out at its first test: sm_120 is false there and takes the `elif`. A finding in
// one header of a chain is marked (`earlier_verdict`, as for an #if/#elif chain) on the arches
// that another header of the same chain admits, and scan::ExcludesTarget lets those through.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "python/direction.h"
#include "gate/finding.h"
#include "util/tri.h"

namespace archpatch::python {

// One header of a chain: its physical lines, and per audit arch whether a gate of the module's
// own (not one the package model resolves) in it admits the arch.
struct ChainHeader {
  int first_line = 0, last_line = 0;
  std::vector<Tri> admits;
};
using BranchChain = std::vector<ChainHeader>;

// The chains of a module (two or more conditioned headers: if and its elifs), with `admits`
// taken from the module's own findings.
std::vector<BranchChain> FindChains(const StatementIndex& statements, const std::vector<Finding>& findings,
                                    size_t arch_count);

// Marks the python-gate findings of both lists that sit in a chain header whose arch another
// header admits (by its own gates or by a finding of either list).
void MarkChainSiblings(const std::map<std::string, std::vector<BranchChain>>& chains, std::vector<Finding>& a,
                       std::vector<Finding>& b);

}  // namespace archpatch::python
