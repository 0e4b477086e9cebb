#include "cuda/runtime_gates.h"

namespace archpatch::cuda {

Result<std::vector<Finding>> FindRuntimeGates(const std::string&, std::string_view,
                                              const std::vector<arch::Arch>&) {
  return std::vector<Finding>{};
}

bool IsCapabilityName(std::string_view) { return false; }

}  // namespace archpatch::cuda
