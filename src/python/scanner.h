// The Python arch-gate scanner: finds every place a Python file decides by GPU architecture
// (JIT builder keyword lists, capability comparisons, predicates, arch strings) and evaluates each
// for every arch, without running Python. See docs/python-gates.md for the shapes and JSON fields.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "arch/arch.h"
#include "python/module_summary.h"
#include "python/syntax.h"
#include "gate/finding.h"
#include "util/result.h"

namespace archpatch::python {

// All arch gates in one Python file, each with its verdict for every arch in `arches` (the
// finding's verdict list follows the order of `arches`). Findings come sorted by position.
// A file that is not valid Python (unterminated string, bad indentation, unbalanced brackets)
// returns an Error with file:line:column; callers report it and go on with the next file.
Result<std::vector<Finding>> ScanPython(const std::string& file, std::string_view contents,
                                        const std::vector<arch::Arch>& arches);

// The module's tokens and logical lines, as the scan read them (their text is the scanned bytes:
// valid while those are).
struct ModuleSyntax {
  TokenStream ts;
  std::vector<LogicalLine> lines;
};

// The same, with what the package model needs from the module (python/package.h), taken from
// the same token pass, and the syntax it was read from (for a later pass over the same bytes).
struct ScannedModule {
  std::vector<Finding> findings;
  ModuleSummary summary;
  ModuleSyntax syntax;
};
Result<ScannedModule> ScanPythonModule(const std::string& file, std::string_view contents,
                                       const std::vector<arch::Arch>& arches);

}  // namespace archpatch::python
