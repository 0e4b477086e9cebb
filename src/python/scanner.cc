#include "python/scanner.h"

namespace archpatch::python {

Result<std::vector<Finding>> ScanPython(const std::string&, std::string_view,
                                        const std::vector<arch::Arch>&) {
  return std::vector<Finding>{};  // placeholder until the recogniser lands
}

}  // namespace archpatch::python
