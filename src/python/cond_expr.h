// Parses Python boolean conditions (or / and / not over gates, calls, constants and names bound
// earlier to such conditions) into CondExpr trees, for the package model.
#pragma once

#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "python/module_summary.h"

namespace archpatch::python {

// A condition bound to a name: `is_sm90 = major == 9`. A bare call (`x = f(a)`, most bindings) is
// kept as the tokens of its binding and read only when a later condition names it: its CondExpr
// depends on those tokens alone, and most bound calls are never named again.
struct BoundCondition {
  CondExpr expr;          // the condition, unless deferred
  bool deferred = false;  // a bare call, bound by the statement on tokens [first, last)
  size_t first = 0, last = 0;
};

// Names bound in one scope to a condition (scope "\0" name -> condition). Hashed: a module's
// bindings are asked about every name of its branches and assignments, and never walked in order.
using BoundConditions = std::unordered_map<std::string, BoundCondition>;

// Writes the BoundConditions key of `name` in `scope` into `key` (a buffer kept across lookups,
// so that asking about every name of a module allocates nothing) and returns it.
const std::string& BoundKey(std::string& key, std::string_view scope, std::string_view name);

class CondParser {
 public:
  // `gate_at`: first token of each gate -> index into the summary's gates (the longest gate).
  CondParser(const TokenStream& ts, const std::map<size_t, size_t>& gate_at, const std::vector<GateTruth>& gates)
      : ts_(ts), gate_at_(gate_at), gates_(gates) {}

  // The condition in tokens [a, b); `params` names the enclosing def's parameters (for
  // `arch in sm_versions`), `bound`/`scope` the conditions bound to names so far.
  CondExpr Parse(size_t a, size_t b, const std::vector<std::string>* params, const BoundConditions* bound,
                 const std::string& scope);
  // Whether Parse(a, b) with no parameters gives nothing but the call on [a, b) (a kCall).
  bool IsBareCall(size_t a, size_t b) const;
  // The condition `bound` holds (made now, when it was deferred).
  CondExpr Resolve(const BoundCondition& bound) const;
  // Marks `e` as bound by the statement `NAME = ...` on tokens [first, last).
  void MarkBound(size_t first, size_t last, CondExpr& e) const;

 private:
  // Each parses from token i (moving i past what it read) into `out`, which comes in Unknown.
  void Or(size_t& i, size_t b, CondExpr& out);
  void And(size_t& i, size_t b, CondExpr& out);
  void Not(size_t& i, size_t b, CondExpr& out);
  void Atom(size_t& i, size_t b, CondExpr& out);
  bool IsCallee(size_t i, size_t j) const;
  void Call(size_t i, size_t j, CondExpr& out) const;
  bool ParamTest(size_t i, size_t j, size_t b, size_t& next, CondExpr& out) const;
  size_t SkipOperand(size_t i, size_t b) const;
  bool EndsOperand(size_t i, size_t b) const;

  const TokenStream& ts_;
  const std::map<size_t, size_t>& gate_at_;
  const std::vector<GateTruth>& gates_;
  const std::vector<std::string>* params_ = nullptr;
  const BoundConditions* bound_ = nullptr;
  const std::string* scope_ = nullptr;
  std::string key_;  // scratch for BoundKey
};

// Whether the expression holds anything the package model can resolve (a gate, a call, a test).
bool HasCapabilityPart(const CondExpr& e);

}  // namespace archpatch::python
