// Condition: the expression of a `#if`/`#elif` parsed with the C preprocessor's grammar, and its
// three-valued evaluation for one preprocessing pass (per arch). Semantics follow GCC's cpp:
// intmax_t/uintmax_t arithmetic, `defined X` / `defined(X)`, C++ alternative tokens
// (and, or, not, bitand, ...), `true`/`false`, comments and backslash-newlines inside the text,
// object-like macro expansion through a MacroLookup. What cpp would reject at evaluation time
// (division by zero, a function-like macro call, `__has_include(...)`) evaluates to unknown.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "arch/arch.h"
#include "cuda/macro_env.h"
#include "util/result.h"
#include "util/tri.h"

namespace archpatch::cuda {

// One node of the expression tree. Offsets are bytes into Condition::text(), half-open.
struct ConditionNode {
  enum class Kind {
    kNumber,      // 1200, 0x4B0u, 'a', true, false
    kIdentifier,  // a macro name (expanded at evaluation)
    kDefined,     // defined X, defined(X): `name` is X
    kCall,        // NAME(...) or __has_include(...): always unknown
    kUnary,       // op: "!", "~", "-", "+" (alternative spellings normalised: not -> !)
    kBinary,      // op: "*", "/", "%", "+", "-", "<<", ">>", "<", ">", "<=", ">=", "==", "!=",
                  //     "&", "^", "|", "&&", "||", "," (and -> &&, or -> ||, ...)
    kTernary,     // c ? a : b
    kParen,       // ( e )
  };
  Kind kind = Kind::kNumber;
  std::string op;                   // operator, normalised spelling
  std::string name;                 // identifier, defined's operand, called name
  intmax_t value = 0;               // kNumber
  bool is_unsigned = false;         // kNumber with a u suffix, or too large for intmax_t
  size_t begin = 0, end = 0;        // the whole subexpression as written
  size_t op_begin = 0, op_end = 0;  // the operator token (binary, unary, ternary's '?')
  std::vector<int> children;        // indices into Condition::nodes()
};

class Condition {
 public:
  std::string_view text() const { return text_; }
  const std::vector<ConditionNode>& nodes() const { return nodes_; }
  const ConditionNode& root() const { return nodes_[root_]; }
  const ConditionNode& node(int index) const { return nodes_[index]; }
  int root_index() const { return root_; }

 private:
  friend class ConditionParser;
  std::string text_;
  std::vector<ConditionNode> nodes_;
  int root_ = 0;
};

// Parses the text after `#if`/`#elif` (trailing comments and a trailing newline are fine).
// Errors: Error.where.line is the 1-based line inside `text` (> 1 only across continuation
// lines), Error.where.column the 1-based byte column in that line; Error.where.file is empty.
Result<Condition> ParseCondition(std::string_view text);

// The condition's value in the pass `lookup` describes. Short-circuits like cpp: `0 && X` is
// false and `1 || X` true whatever X is.
Tri Evaluate(const Condition& condition, const MacroLookup& lookup);

// Evaluate for each device pass in `arches` (ArchLookup(arch, env)), in the same order.
std::vector<Tri> EvaluatePerArch(const Condition& condition, const std::vector<arch::Arch>& arches,
                                 const MacroEnv& env);

// Whether the name is one whose value depends on the target arch: __CUDA_ARCH__,
// __CUDA_ARCH_LIST__, __CUDA_ARCH_SPECIFIC__, __CUDA_ARCH_FAMILY_SPECIFIC__,
// __CUDA_ARCH_FEAT_*, and <nv/target>'s NV_PROVIDES_SM_*, NV_IS_EXACTLY_SM_*, NV_IS_DEVICE,
// NV_IS_HOST, NV_ANY_TARGET, NV_NO_TARGET.
bool IsArchMacro(std::string_view name);

// Whether any identifier of the condition (also under `defined`) is an arch macro.
bool MentionsArchMacro(const Condition& condition);

// The macro names the condition mentions (also under `defined`, and called names), each once,
// in order of first appearance.
std::vector<std::string> Identifiers(const Condition& condition);

}  // namespace archpatch::cuda
