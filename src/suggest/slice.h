// Cutting an installed file down to the lines a rule fixture needs (rules/README.md: "only the
// lines around each gate ... enough for the scanners to see the same scopes and conditions"). The
// lines near each gate are kept; every other run of lines is dropped when the rule still selects
// the same places in what is left (a caller's test), else halved and tried again (delta debugging),
// so the structure the scanners need (a def or class line, a function's head, an #endif) stays.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace archpatch::suggest {

// Whether `text` (a candidate slice) still gives the rule's places as the whole file does.
using SamePlaces = std::function<bool(std::string_view text)>;

struct SliceOptions {
  int context = 1;         // lines kept on each side of a gate line
  size_t max_tries = 600;  // calls of `same` at most; what is not decided by then is kept
};

// `gate_lines`: 1-based lines of the gates. The result keeps those lines with their context and
// whatever `same` needs; lines keep their order and their bytes (line ends included).
std::string SliceAroundGates(std::string_view contents, const std::vector<int>& gate_lines, const SamePlaces& same,
                             const SliceOptions& options = {});

}  // namespace archpatch::suggest
