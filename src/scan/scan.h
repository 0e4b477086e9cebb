// One file's gates, whatever its language: the entry point the plan stage uses to locate edits,
// and the building block of `archpatch audit`. Dispatches by file name to the CUDA/C++ scanner
// (src/cuda) or the Python scanner (src/python).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "arch/arch.h"
#include "cuda/macro_env.h"
#include "gate/finding.h"
#include "util/result.h"

namespace archpatch::scan {

enum class FileKind { kCuda, kPython, kOther };

// By extension: .cu .cuh .h .hpp .hh .cc .cpp .cxx .inl -> kCuda, .py -> kPython.
FileKind KindOf(std::string_view path);

// EVERY arch gate of one file (not filtered by a target arch): each with its text, exact byte
// span, line:column, scope (the enclosing function for C++ gates inside one, the def/class chain
// for Python) and its verdict for every arch of `arches` (in that order). Kinds: cuda-gate
// (#if chains and <nv/target> macros: gate::DirectiveForm | gate::NvTargetForm),
// cpp-runtime-gate, python-gate. `path` is copied into Finding::file as given.
// Errors: a file libclang cannot read, or (Python) a file that is not valid Python. A malformed
// #if condition is not an error of the file: that branch is left out and the rest still comes
// back (see ScanFileGatesWithWarnings).
Result<std::vector<Finding>> ScanFileGates(const std::string& path, std::string_view contents,
                                           const std::vector<arch::Arch>& arches, const cuda::MacroEnv& env);

// As ScanFileGates, and also the per-branch problems (malformed conditions, unbalanced #endif)
// that audit prints as warnings.
struct FileGates {
  std::vector<Finding> findings;
  std::vector<Error> warnings;
};
Result<FileGates> ScanFileGatesWithWarnings(const std::string& path, std::string_view contents,
                                            const std::vector<arch::Arch>& arches, const cuda::MacroEnv& env);

}  // namespace archpatch::scan
