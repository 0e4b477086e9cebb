#include "scan/scan.h"

#include "cuda/gates.h"
#include "python/scanner.h"

namespace archpatch::scan {

FileKind KindOf(std::string_view path) {
  size_t dot = path.rfind('.');
  size_t slash = path.rfind('/');
  if (dot == std::string_view::npos || (slash != std::string_view::npos && dot < slash)) return FileKind::kOther;
  std::string_view ext = path.substr(dot + 1);
  if (ext == "py") return FileKind::kPython;
  static constexpr std::string_view kCuda[] = {"cu", "cuh", "h", "hpp", "hh", "cc", "cpp", "cxx", "inl"};
  for (std::string_view e : kCuda) {
    if (ext == e) return FileKind::kCuda;
  }
  return FileKind::kOther;
}

Result<FileGates> ScanFileGatesWithWarnings(const std::string& path, std::string_view contents,
                                            const std::vector<arch::Arch>& arches, const cuda::MacroEnv& env) {
  if (KindOf(path) == FileKind::kPython) {
    Result<std::vector<Finding>> found = python::ScanPython(path, contents, arches);
    if (!found) return found.error();
    return FileGates{std::move(*found), {}};
  }
  Result<cuda::CudaGates> found = cuda::ScanCudaGates(path, contents, arches, env);
  if (!found) return found.error();
  return FileGates{std::move(found->findings), std::move(found->warnings)};
}

Result<std::vector<Finding>> ScanFileGates(const std::string& path, std::string_view contents,
                                           const std::vector<arch::Arch>& arches, const cuda::MacroEnv& env) {
  Result<FileGates> gates = ScanFileGatesWithWarnings(path, contents, arches, env);
  if (!gates) return gates.error();
  return std::move(gates->findings);
}

}  // namespace archpatch::scan
