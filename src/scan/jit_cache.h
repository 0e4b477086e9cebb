// FlashInfer's prebuilt modules (the flashinfer-jit-cache distribution's jit_cache/ folder, or
// flashinfer/data/aot/): `<dir>/<NAME>/<NAME>.so`, loaded by JitSpec.build_and_load() instead of
// a JIT build whenever it exists, whatever the module's gate says. Each is an artifact group of
// scan/artifacts.h named NAME, its arches read from the .so's kernel images; its loaders are the
// functions that write NAME as a string ("fused_moe_trtllm_sm100" in
// gen_trtllm_gen_fused_moe_sm100_module, `gen_jit_spec("trtllm_gemm", ...)`).
#pragma once

#include <string>
#include <vector>

#include "scan/artifacts.h"

namespace archpatch::scan {

// The prebuilt modules among `installed` (paths as walked): a file NAME.so in a folder NAME whose
// parent is named jit_cache or aot.
std::vector<ArtifactGroup> FindPrebuiltModules(const std::vector<std::string>& installed);

// Adds `modules` to the index with, as their loaders, the functions of `python` (paths) that
// write a module's name as a whole string literal. Each file is read once and tokenized only when
// it holds one of the names in quotes.
void AddPrebuiltModules(std::vector<ArtifactGroup> modules, const std::vector<std::string>& python,
                        ArtifactIndex& index);

}  // namespace archpatch::scan
