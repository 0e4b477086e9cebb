// Links Python gate findings to the binaries their module loads: ungating a Python check does
// not help when the extension it guards has no kernel image for the target.
//
// Best effort, by name: a .py is taken to load a binary when it imports a module whose name is
// the binary's stem (`from . import _kernels` -> _kernels.cpython-312-x86_64-linux-gnu.so,
// `import fastattn._C` -> _C.so) within the same top-level package, or when it names the
// binary's file in a string literal (ctypes.CDLL("libfoo.so"), torch.ops.load_library(...)).
#pragma once

#include <string>
#include <vector>

#include "binary/scan.h"
#include "gate/finding.h"

namespace archpatch::binary {

// The import targets and .so names one Python source mentions: "fastattn._C", "_kernels",
// "libfoo.so". Comments are skipped; nothing is executed.
std::vector<std::string> PythonLoadNames(const std::string& source);

// For every finding of a kind starting with "python" whose file loads a no-image binary (for
// the first target of the scan), sets Finding::no_image_binaries (display paths) and says so
// in the summary. `roots` are where relative finding paths resolve (the audit's PATHs).
void NoteNoImageBinaries(std::vector<Finding>& findings, const BinaryScan& scan, const std::vector<std::string>& roots);

}  // namespace archpatch::binary
