// Placeholder bodies while the strategies land; the interface in widen.h is the contract.
#include "cuda/widen.h"

namespace archpatch::cuda {

Result<WidenStrategy> ParseWidenStrategy(std::string_view) { return Error{"not implemented yet"}; }
std::string_view WidenStrategyName(WidenStrategy) { return ""; }
Result<std::string> WidenCondition(std::string_view, WidenStrategy, const std::vector<arch::Arch>&,
                                   const MacroEnv&) {
  return Error{"not implemented yet"};
}

}  // namespace archpatch::cuda
