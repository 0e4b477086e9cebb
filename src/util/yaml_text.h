// Where a YAML text's second document begins, found on the text itself: yaml-cpp's LoadAll loops
// forever on a stray ',' after a top-level node (", a" hangs yaml-cpp 0.7; found by fuzz_rule),
// and Load silently drops every document after the first. A line starting with "---" or "..."
// (then a space, a tab or the end) is a document marker wherever it appears (YAML 1.2,
// c-forbidden), so a line scan is exact.
#pragma once

#include <optional>
#include <string_view>

namespace archpatch {

// The 1-based line where a second document starts (its "---", or the first content after a
// "..."), or nullopt when the text holds at most one document.
std::optional<int> SecondYamlDocumentLine(std::string_view text);

}  // namespace archpatch
