#include "util/identifier.h"

namespace archpatch {

bool IsIdentifier(std::string_view text) {
  return !text.empty() && IsIdentifierStart(text[0]) && IdentifierRunAt(text, 0) == text.size();
}

}  // namespace archpatch
