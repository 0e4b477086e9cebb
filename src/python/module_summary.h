// What the package model needs from one Python module, taken during its scan (one token pass):
// its imports, the small functions whose result is a capability predicate (as boolean
// expressions over the gates found in them), and the calls that may use such a predicate in a
// branch. src/python/package.h resolves the calls across modules.
#pragma once

#include <string>
#include <vector>

#include "python/chains.h"
#include "python/direction.h"
#include "python/syntax.h"
#include "python/verdict.h"
#include "util/tri.h"

namespace archpatch::python {

// A place in a module, for `via`.
struct Place {
  int line = 0;
  int column = 0;
  std::string text;
};

// A boolean expression over gates, calls and parameter tests, evaluated per arch with Kleene
// logic (what is not understood is unknown).
struct CondExpr {
  enum class Kind { kUnknown, kConst, kGate, kCall, kParamTest, kAnd, kOr, kNot };
  Kind kind = Kind::kUnknown;
  Tri value = Tri::kUnknown;  // kConst
  size_t gate = 0;            // kGate: index into ModuleSummary::gates
  std::string callee;         // kCall: the dotted name as written ("utils.is_sm100a_supported")
  std::vector<Literal> args;  // kCall: positional arguments as literals (kOpaque when not)
  int param = -1;             // kParamTest: `operand op param`
  Operand operand = Operand::kArchName;
  Compare op = Compare::kIn;
  std::vector<CondExpr> kids;  // kAnd, kOr, kNot
  Place where;                 // kCall / kParamTest: the call or test as written
  std::string bound_name;      // set when the expression was bound to a name (`is_sm90 = ...`)
  Place bound_at;              // the binding, for `via`
};

// A gate of the module with its own truth per arch (before any direction), in audit arch order.
struct GateTruth {
  Place where;
  size_t last_token = 0;  // the gate's tokens end here (its first token keys CondParser's map)
  std::vector<Tri> holds;
};

// `def name(params):` whose returns read as a predicate: value = c1 ? r1 : c2 ? r2 : ... : last.
struct PredicateDef {
  std::string name;                                  // "is_sm100a_supported"
  std::vector<std::string> params;                   // without self/cls
  std::vector<std::pair<CondExpr, CondExpr>> early;  // `if c: return r`, in order
  CondExpr last;                                     // the final return (False when the function falls off its end)
  Place where;                                       // the def line
};

// `from .utils import is_sm100a_supported as f`: alias f -> module (level, dotted), name.
struct ImportBinding {
  std::string alias;
  int level = 0;       // leading dots of a relative import
  std::string module;  // dotted module path ("flashinfer.utils", "" for `from . import x`)
  std::string name;    // the imported name; empty when the alias is the module itself
};

// A call in a branch that may name a predicate of this or another module.
struct CallSite {
  CondExpr call;  // kind kCall
  size_t first_token = 0, last_token = 0;
  ByteSpan span;
  Place where;  // the call (or the bound name) as written at the branch
  std::string scope;
  GateDirection direction;
};

struct ModuleSummary {
  std::string file;
  std::vector<GateTruth> gates;
  std::vector<PredicateDef> predicates;
  std::vector<ImportBinding> imports;
  std::vector<CallSite> calls;
  std::vector<BranchChain> chains;  // if/elif chains, for python::MarkChainSiblings
};

struct Gate;  // recognizer.h

// Builds the summary of one module from what its scan already computed.
ModuleSummary SummarizeModule(const std::string& file, const TokenStream& ts, const std::vector<LogicalLine>& lines,
                              const std::vector<Gate>& gates, const std::vector<arch::Arch>& arches);

}  // namespace archpatch::python
