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

// Lines [first, last] (1-based) that are kept or dropped together: a Python logical line spans
// all its physical lines, so a cut never falls inside a bracket.
struct LineUnit {
  int first = 0;
  int last = 0;
  int depth = -1;  // Python: indentation depth; the units a gate's unit is nested in (its def and
                   // class lines, the if around it) are kept with it. -1: not known
};

struct SliceOptions {
  int context = 1;         // units kept on each side of a gate's unit
  size_t max_tries = 600;  // calls of `same` at most; what is not decided by then is kept
};

// `gate_lines`: 1-based lines of the gates. `units`: how lines group (sorted, disjoint; lines in
// none are units of their own). The result keeps the gates' units with their context and whatever
// `same` needs; lines keep their order and their bytes (line ends included).
std::string SliceAroundGates(std::string_view contents, const std::vector<int>& gate_lines, const SamePlaces& same,
                             const std::vector<LineUnit>& units = {}, const SliceOptions& options = {});

}  // namespace archpatch::suggest
