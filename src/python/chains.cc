#include "python/chains.h"

#include <algorithm>

namespace archpatch::python {
namespace {

bool InHeader(const Finding& f, const ChainHeader& h) { return h.first_line <= f.line && f.line <= h.last_line; }

// A refusing header "admits" the arches that skip it, which take no branch there; only an
// enabling or fallback header's verdict says the arch takes that branch.
bool TakesBranch(const Finding& f) {
  return f.kind == gate::Kind::kPythonGate && f.direction != gate::Direction::kRefuses;
}

Tri AnyTrue(Tri x, Tri y) { return x == Tri::kTrue || y == Tri::kTrue ? Tri::kTrue : x; }

// What each header of `chain` admits: its own gates, and the findings of the file in it.
std::vector<std::vector<Tri>> Admitted(const BranchChain& chain, const std::vector<Finding*>& in_file) {
  std::vector<std::vector<Tri>> out;
  for (const ChainHeader& h : chain) {
    std::vector<Tri> admits = h.admits;
    for (const Finding* f : in_file) {
      if (!InHeader(*f, h) || !TakesBranch(*f)) continue;
      for (size_t a = 0; a < admits.size() && a < f->verdict.size(); ++a)
        admits[a] = AnyTrue(admits[a], f->verdict[a].value);
    }
    out.push_back(std::move(admits));
  }
  return out;
}

void Mark(Finding& f, const BranchChain& chain, const std::vector<std::vector<Tri>>& admitted) {
  for (size_t k = 0; k < chain.size(); ++k) {
    if (!InHeader(f, chain[k])) continue;
    gate::Verdicts taken;
    bool any = false;
    for (size_t a = 0; a < f.verdict.size(); ++a) {
      bool other = false;
      for (size_t j = 0; j < chain.size(); ++j) {
        other |= j != k && a < admitted[j].size() && admitted[j][a] == Tri::kTrue;
      }
      taken.push_back({f.verdict[a].arch, other ? Tri::kTrue : Tri::kFalse});
      any |= other;
    }
    if (any) f.chain.earlier_taken = std::move(taken);  // "another branch of the chain is taken"
    return;
  }
}

}  // namespace

std::vector<BranchChain> FindChains(const StatementIndex& statements, const std::vector<Finding>& findings,
                                    size_t arch_count) {
  std::vector<BranchChain> chains;
  for (const std::vector<std::pair<int, int>>& headers : statements.ConditionedChains()) {
    BranchChain chain;
    for (const auto& [first, last] : headers) {
      ChainHeader h{first, last, std::vector<Tri>(arch_count, Tri::kFalse)};
      for (const Finding& f : findings) {
        if (!InHeader(f, h) || !TakesBranch(f)) continue;
        for (size_t a = 0; a < arch_count && a < f.verdict.size(); ++a)
          h.admits[a] = AnyTrue(h.admits[a], f.verdict[a].value);
      }
      chain.push_back(std::move(h));
    }
    chains.push_back(std::move(chain));
  }
  return chains;
}

void MarkChainSiblings(const std::map<std::string, std::vector<BranchChain>>& chains, std::vector<Finding>& a,
                       std::vector<Finding>& b) {
  std::map<std::string, std::vector<Finding*>> by_file;  // the python findings of files with chains
  for (std::vector<Finding>* list : {&a, &b}) {
    for (Finding& f : *list) {
      if (f.kind == gate::Kind::kPythonGate && chains.count(f.file)) by_file[f.file].push_back(&f);
    }
  }
  for (auto& [file, in_file] : by_file) {
    for (const BranchChain& chain : chains.at(file)) {
      const std::vector<std::vector<Tri>> admitted = Admitted(chain, in_file);
      for (Finding* f : in_file) Mark(*f, chain, admitted);
    }
  }
}

}  // namespace archpatch::python
