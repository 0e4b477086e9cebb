// Cheap tests that let the recogniser pass over a line or a string without its full parse. Each
// must answer "maybe" wherever the full path could find a gate: prefilter_test.cc holds every
// shape of docs/python-gates.md against them.
#pragma once

#include <string_view>

#include "python/syntax.h"

namespace archpatch::python {

// Whether the line holds a comparison operator (==, !=, <, <=, >, >=) or `in` (`not in` too):
// every comparison gate, plain or reversed, needs one, and most lines have none.
bool MayHoldComparison(const TokenStream& ts, const LogicalLine& line);

// Whether a string with this body (between the quotes) can be an nvcc flag (each of its keys
// ends in '='), an arch name with its sm_/compute_ prefix, or, on a line about arch lists, a
// dotted list ("9.0 10.0a").
bool MayNameArch(std::string_view body, bool arch_list_line);

}  // namespace archpatch::python
