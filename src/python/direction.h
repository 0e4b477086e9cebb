// Which way a Python gate's branch goes. A comparison means nothing alone: `if major < 9: raise`
// admits sm_120, `if major != 10: raise` refuses it. The direction says what the statement
// holding the gate does when its condition is true, so that a gate's verdict per arch can say
// "admitted" or "refused" (docs/python-gates.md, "Direction").
#pragma once

#include <string_view>
#include <utility>
#include <vector>

#include "gate/finding.h"
#include "python/syntax.h"

namespace archpatch::python {

// The gate model's direction (gate/finding.h): kEnables, the true branch is the feature (or the
// gate is no branch: a list, an assert); kRefuses, the true branch raises, returns False/None,
// returns early, continues, skips; kFallback, the true branch is one path and the others reach a
// working alternative. A Python gate's direction is never kUnknown.
using Branch = gate::Direction;

struct GateDirection {
  Branch branch = Branch::kEnables;
  bool negated = false;  // the gate sits under `not` inside its condition
  // Whether a true gate admits the arch: flip the gate's own verdict when false.
  bool TrueAdmits() const { return (branch == Branch::kRefuses) == negated; }
};

// The statements of one file, for looking up the statement around a token.
class StatementIndex {
 public:
  StatementIndex(const TokenStream& ts, const std::vector<LogicalLine>& lines) : ts_(ts), lines_(lines) {}

  // The direction of the gate spanning tokens [first, last).
  GateDirection DirectionOf(size_t first, size_t last) const;
  // The index of the logical line holding token `t` (lines_.size() if none).
  size_t LineOf(size_t t) const;
  // Whether tokens [a, b) are one statement that refuses: raise, bare return, return False /
  // None / NotImplemented / (False, ...), continue, assert False, pytest.skip(...), sys.exit(...).
  bool IsRefusal(size_t a, size_t b) const;
  // The colon ending the header of a compound statement on line `k` (npos if none).
  size_t HeaderColon(size_t k) const;
  // Whether the block headed by line `k` refuses (its body raises, or ends in a refusal).
  bool BlockRefuses(size_t k) const;
  // The line after the block headed by line `k`.
  size_t BlockEnd(size_t k) const;
  // Whether the block headed by line `k` ends in `return`.
  bool BlockReturns(size_t k) const;
  // Each `if` with one or more `elif`s (and the `if`s after it when every branch returns): the
  // physical lines of every conditioned header, in order.
  std::vector<std::vector<std::pair<int, int>>> ConditionedChains() const;

 private:
  bool Negated(size_t cond_begin, size_t first, size_t last) const;
  bool IsLogging(size_t a, size_t b) const;  // logger.warning(...), warnings.warn(...), print(...)
  bool BlockWarnsFirst(size_t k) const;      // the block headed by line `k` opens with a warning
  bool BlockOnlyValidates(size_t k) const;   // the block only asserts or calls validate_*/check_*
  bool IsValidation(size_t a, size_t b) const;
  enum class Constants { kFalsy, kNumbers, kOther };
  Constants BlockSetsConstants(size_t k) const;  // what the block's `NAME = constant` statements bind
  Branch IfBranch(size_t k) const;

  const TokenStream& ts_;
  const std::vector<LogicalLine>& lines_;
};

}  // namespace archpatch::python
