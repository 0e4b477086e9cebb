// Parses Python boolean conditions (or / and / not over gates, calls, constants and names bound
// earlier to such conditions) into CondExpr trees, for the package model.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "python/module_summary.h"

namespace archpatch::python {

// Names bound in one scope to a condition: `is_sm90 = major == 9` (scope "\0" name -> expr).
using BoundConditions = std::map<std::string, CondExpr, std::less<>>;

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

 private:
  CondExpr Or(size_t& i, size_t b);
  CondExpr And(size_t& i, size_t b);
  CondExpr Not(size_t& i, size_t b);
  CondExpr Atom(size_t& i, size_t b);
  bool Call(size_t i, size_t j, CondExpr& out) const;
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
