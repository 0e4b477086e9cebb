// The gate recogniser: walks the logical lines of one file and finds every shape listed in
// docs/python-gates.md. It produces Gates (data); scanner.cc turns them into Findings.
#pragma once

#include <array>
#include <map>
#include <string>
#include <vector>

#include "python/syntax.h"
#include "python/verdict.h"

namespace archpatch::python {

// One comparison a gate makes: `operand op literal`.
struct Term {
  Operand operand = Operand::kMajor;
  Compare op = Compare::kIn;
  Literal literal;  // the value compared against, as evaluated
};

struct Gate {
  std::string shape;       // "keyword", "assignment", "comparison", "condition", "predicate", ...
  std::string name;        // the keyword, variable, callee or operand as written
  Literal literal;         // what a rewrite touches (span) and what "values" shows
  size_t first_token = 0;  // the gate expression as written: tokens [first_token, last_token)
  size_t last_token = 0;
  Scope scope;
  // The gate is true when any group holds entirely: OR of ANDs (one group of one term for
  // everything but combined conditions like `major == 12 and minor == 0`).
  std::vector<std::vector<Term>> any_of_all;

  Tri EvaluateOn(const arch::Arch& target) const;
};

// What a name is known to hold inside one function (or at module level).
enum class Provenance { kNone, kMajor, kMinor, kCapability, kComputeCapability, kProperties };

class Recognizer {
 public:
  Recognizer(const TokenStream& ts, const std::vector<LogicalLine>& lines);
  std::vector<Gate> Run();

 private:
  // gates.cc: capability expressions, comparisons and combined conditions.
  void RecordProvenance(const LogicalLine& line);
  Provenance Lookup(const Scope& scope, std::string_view name) const;
  const std::string& ScopedKey(const Scope& scope, std::string_view name) const;
  Provenance ClassifyPrimary(const LogicalLine& line, size_t i, size_t j, std::string_view& last_name) const;
  void FindComparisons(const LogicalLine& line);
  size_t SmArithmetic(const LogicalLine& line, size_t i, size_t j, Provenance& p) const;
  bool IsLoopTarget(const LogicalLine& line, size_t i) const;
  bool TryComparison(const LogicalLine& line, size_t i, std::vector<Gate>& out);
  bool TryReversedComparison(const LogicalLine& line, size_t i, std::vector<Gate>& out);
  size_t CompareOpAt(size_t j, size_t end, Compare& op) const;
  bool EndsExpression(size_t next, size_t end) const;
  void MergeConditions(std::vector<Gate>& comparisons);

  // shapes.cc: keyword/assignment carriers, predicates, compute-capability lists, arch strings.
  // Run() calls each Find* only on the lines whose LineHints (prefilter.h) say it may find a gate.
  void FindCarriers(const LogicalLine& line);
  void FindCalls(const LogicalLine& line);
  void FindArchStrings(const LogicalLine& line);
  void CollectCovered();
  bool CoveredByGate(size_t offset) const;

  const TokenStream& ts_;
  const std::vector<LogicalLine>& lines_;
  Bindings bindings_;
  std::map<std::string, Provenance, std::less<>> provenance_;  // "scope\0name"
  mutable std::string key_;                                    // scratch for ScopedKey
  std::vector<Gate> gates_;
  std::vector<ByteSpan> covered_;  // merged spans of the gates before the arch-string pass
};

// Shared by the two halves of the recogniser.
bool IsPair(const Literal& lit);
// Every concrete item satisfies `pred` and there is at least one (opaque items are allowed).
template <typename Pred>
bool AllItems(const Literal& lit, Pred pred) {
  if (!lit.IsCollection()) return false;
  int concrete = 0;
  for (const Literal& item : lit.items) {
    if (item.kind == LiteralKind::kOpaque) continue;
    if (!pred(item)) return false;
    ++concrete;
  }
  return concrete > 0;
}
std::string LowerText(std::string_view text);
inline char LowerChar(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

// Whether `text` lowered (as LowerText) ends with / contains `lower`, which is lowercase already:
// asked of names that mostly fail, without a lowered copy of each. The ending is compared from
// its last byte: a name that fails mostly fails within its last two.
inline bool EndsWithLower(std::string_view text, std::string_view lower) {
  if (text.size() < lower.size()) return false;
  const char* const tail = text.data() + (text.size() - lower.size());
  for (size_t k = lower.size(); k-- > 0;) {
    if (LowerChar(tail[k]) != lower[k]) return false;
  }
  return true;
}
bool ContainsLower(std::string_view text, std::string_view lower);

// `text` lowered (ASCII) into an inline buffer: the recogniser lowers most names it asks about,
// and a string for each was a large share of the scan's allocations. Not copyable: it views itself.
class LowerName {
 public:
  explicit LowerName(std::string_view text);
  LowerName(const LowerName&) = delete;
  LowerName& operator=(const LowerName&) = delete;
  std::string_view view() const { return long_.empty() ? std::string_view(short_.data(), size_) : long_; }
  operator std::string_view() const { return view(); }  // NOLINT(google-explicit-constructor)

 private:
  std::array<char, 64> short_;
  size_t size_ = 0;
  std::string long_;  // a name longer than short_ holds
};

}  // namespace archpatch::python
