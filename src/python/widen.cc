#include "python/widen.h"

namespace archpatch::python {

Result<std::string> WidenLiteral(std::string_view contents, const Finding& finding,
                                 const std::vector<arch::Arch>&, AddMode) {
  return std::string(contents.substr(finding.span.begin, finding.span.end - finding.span.begin));
}

}  // namespace archpatch::python
