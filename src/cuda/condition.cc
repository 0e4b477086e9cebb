// Placeholder bodies while the parser lands; the interface in condition.h is the contract.
#include "cuda/condition.h"

namespace archpatch::cuda {

Result<Condition> ParseCondition(std::string_view) { return Error{"condition parser not implemented yet"}; }
Tri Evaluate(const Condition&, const MacroLookup&) { return Tri::kUnknown; }
std::vector<Tri> EvaluatePerArch(const Condition&, const std::vector<arch::Arch>& arches, const MacroEnv&) {
  return std::vector<Tri>(arches.size(), Tri::kUnknown);
}
bool IsArchMacro(std::string_view) { return false; }
bool MentionsArchMacro(const Condition&) { return false; }
std::vector<std::string> Identifiers(const Condition&) { return {}; }

}  // namespace archpatch::cuda
