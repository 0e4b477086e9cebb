// Cheap tests that let the recogniser pass over a line or a string without its full parse. Each
// must answer "maybe" wherever the full path could find a gate: prefilter_test.cc holds every
// shape of docs/python-gates.md against them.
#pragma once

#include <string_view>

#include "python/syntax.h"

namespace archpatch::python {

// What one logical line may hold, for each pass of the recogniser that reads it token by token:
// taken in one pass over its tokens, so that each of those runs only on the few lines it can
// find something in (four passes over every line were a third of the recogniser's cost).
struct LineHints {
  bool comparison = false;  // see MayHoldComparison
  bool carrier = false;     // a name IsCarrierName accepts (keyword and assignment carriers)
  bool call = false;        // a name as long as a predicate callee's, then '(' (FindCalls)
  bool string = false;      // a string token (FindArchStrings)
};
LineHints HintsOf(const TokenStream& ts, const LogicalLine& line);

// Whether the line holds a comparison operator (==, !=, <, <=, >, >=) or `in` (`not in` too):
// every comparison gate, plain or reversed, needs one, and most lines have none.
bool MayHoldComparison(const TokenStream& ts, const LogicalLine& line);

// supported_major_versions, device_capability_majors, supported_archs, admissible_archs,
// TORCH_CUDA_ARCH_LIST, cuda_arch_list, supported_capabilities, sm_versions: a name ending (any
// case) in major_versions, majors, archs, arches, arch_list, capabilities, sm_versions,
// compute_capability_list or ccs, without "flags" in it.
bool IsCarrierName(std::string_view name);

// The length of the shortest callee FindCalls reads the arguments of ("is_family_of").
inline constexpr size_t kShortestPredicateCallee = 12;

// Whether a string with this body (between the quotes) can be an nvcc flag (each of its keys
// ends in '='), an arch name with its sm_/compute_ prefix, or, on a line about arch lists, a
// dotted list ("9.0 10.0a").
bool MayNameArch(std::string_view body, bool arch_list_line);

}  // namespace archpatch::python
