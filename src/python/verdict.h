// How a Python gate's literal decides for one arch. The semantics are documented in
// docs/python-gates.md; in short: majors compare with the arch's major, (major, minor) pairs
// lexicographically, compute-capability integers (90, 120) with major*10+minor, and arch names
// ("sm_90a", "9.0a", "120") match the chip they name.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "arch/arch.h"
#include "python/syntax.h"
#include "util/tri.h"

namespace archpatch::python {

// What the left-hand side of a gate holds.
enum class Operand {
  kMajor,              // 12
  kMinor,              // 0
  kCapability,         // (12, 0)
  kComputeCapability,  // 120
  kArchName,           // "sm_120a", "12.0", "120"
};
std::string_view OperandName(Operand o);  // "major", "minor", "capability", ...

enum class Compare { kEq, kNe, kLt, kLe, kGt, kGe, kIn, kNotIn };
std::optional<Compare> CompareFromText(std::string_view op);  // "==", "not in", ...
std::string_view CompareText(Compare c);
Compare Flip(Compare c);  // `10 <= major` is `major >= 10`

using arch::ArchName;  // one arch a string names (arch/arch.h reads every spelling)

// A TORCH_CUDA_ARCH_LIST-style list: "8.0 9.0a;10.0+PTX" (space, ';' or ',' separated).
std::optional<std::vector<ArchName>> ParseArchListString(std::string_view text);
// The targets of nvcc flags in a string: "-gencode=arch=compute_90a,code=sm_90a",
// "-arch=sm_100a", "--gpu-architecture=compute_120". Empty when it holds none.
std::vector<ArchName> NvccArchTargets(std::string_view text);

// The verdict of `operand op literal` for `target`. kUnknown where the literal (or an element
// of it) is not a constant archpatch can read.
Tri Evaluate(Operand operand, Compare op, const Literal& literal, const arch::Arch& target);

// The value an operand has on `target`, as a literal would spell it, for equality checks.
bool ScalarMatches(Operand operand, const Literal& item, const arch::Arch& target, Tri& out);

// The arches whose value is `which`, joined with ", "; a chip whose every audited variant has it
// is named once by its plain name ("sm_120, sm_121a").
std::string JoinedArchNames(const std::vector<arch::Arch>& arches, const std::vector<Tri>& values, Tri which);

}  // namespace archpatch::python
