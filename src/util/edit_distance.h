// Levenshtein distance, for "did you mean ...?" suggestions (unknown commands, rule keys).
#pragma once

#include <cstddef>
#include <string_view>

namespace archpatch {

size_t EditDistance(std::string_view a, std::string_view b);

}  // namespace archpatch
