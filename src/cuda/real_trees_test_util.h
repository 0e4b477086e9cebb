// The real trees the evaluation's environment names (eval/README.md: CUTLASS, FLASHINFER_V0616,
// ...), for the tests that read every C/C++ file of them. A test given none skips.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

namespace archpatch::cuda {

inline constexpr const char kNoRealTrees[] = "set CUTLASS, FLASHINFER_V0616, ... to real trees (eval/README.md)";

inline std::vector<std::string> RealTreeRoots() {
  std::vector<std::string> roots;
  for (const char* var : {"CUTLASS", "FLASHINFER_V0616", "FLASHINFER_HEAD", "FLASH_ATTENTION", "DEEPGEMM"}) {
    if (const char* root = std::getenv(var)) roots.emplace_back(root);
  }
  return roots;
}

// visit(path, bytes) for each C/C++/CUDA source under `root` (.h .hpp .cuh .cu .cc .cpp .inl .c);
// returns how many.
inline size_t ForEachCxxFile(const std::string& root,
                             const std::function<void(const std::filesystem::path&, const std::string&)>& visit) {
  size_t files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    const std::string ext = entry.path().extension().string();
    if (!entry.is_regular_file() || (ext != ".h" && ext != ".hpp" && ext != ".cuh" && ext != ".cu" && ext != ".cc" &&
                                     ext != ".cpp" && ext != ".inl" && ext != ".c")) {
      continue;
    }
    std::ifstream in(entry.path(), std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), {});
    ++files;
    visit(entry.path(), text);
  }
  return files;
}

}  // namespace archpatch::cuda
