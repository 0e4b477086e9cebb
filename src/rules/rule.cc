#include "rules/rule.h"

#include "env/digest.h"

namespace archpatch::rules {

std::string_view Edit::KindName() const {
  if (std::holds_alternative<CudaGate>(action)) return "cuda-gate";
  if (std::holds_alternative<PythonGate>(action)) return "python-gate";
  return "replace";
}

std::string Sha256Of(const Rule& rule) { return env::Sha256Hex(rule.text); }

std::string_view AddFormName(AddForm a) { return a == AddForm::kMajor ? "major" : "capability"; }

}  // namespace archpatch::rules
