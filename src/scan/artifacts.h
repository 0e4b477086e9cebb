// The precompiled artifacts a package's modules load at run time (docs/audit.md, "Precompiled
// artifacts"), built in one pass over the audited paths: the artifact groups the package declares
// (FlashInfer's `class ArtifactPath`: `TRTLLM_GEN_BMM: str = "5988e15c.../batched_gemm-.../"`),
// the functions that name them (module generators such as gen_trtllm_gen_fused_moe_sm100_module,
// with the C++/CUDA sources they compile), and the arches each group's images are for, from what
// is installed under the same paths (the flashinfer-cubin distribution's cubins/ folder, a copy
// of the cubin cache): cubin ELF headers, arch names in file and folder names and in a group's
// checksums.txt, or a declared `NAME_ARCHS` tuple beside the group.
#pragma once

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "arch/arch.h"
#include "gate/finding.h"

namespace archpatch::scan {

struct ArtifactGroup {
  std::string name;                                    // "TRTLLM_GEN_BMM"
  std::string path;                                    // "5988e15c.../batched_gemm-3d40263-3e19f0a" (no trailing '/')
  std::string declared;                                // "flashinfer/artifacts.py:139"
  std::set<std::string> arches;                        // "sm_100f", as arch::Arch::name() writes them
  gate::ArchesFrom from = gate::ArchesFrom::kUnknown;  // the strongest evidence for `arches`
  std::vector<std::string> binaries;                   // installed files of the group (the first kMaxListed)
  size_t binary_count = 0;
  size_t headers_read = 0;  // cubins whose ELF header was read (at most kMaxHeaderReads)
};

// A function that names artifact groups and loads them: its own strings name a binary to load, or
// a function of its module that does calls it (deep_gemm.py's load() calls
// get_deepgemm_artifact_path()). A function that names a group for its headers only
// (gen_moe_utils_module fetches the batched-GEMM export headers, compiles from source) is none.
struct ArtifactLoader {
  std::string file;                  // the Python file, as walked
  std::string scope;                 // "gen_trtllm_gen_fused_moe_sm100_module", "Class.method"
  std::vector<size_t> groups;        // into ArtifactIndex::groups
  std::vector<std::string> sources;  // string literals naming C++/CUDA files it compiles
};

struct ArtifactIndex {
  std::vector<ArtifactGroup> groups;
  std::vector<ArtifactLoader> loaders;
  std::map<std::string, std::vector<size_t>, std::less<>> loaders_by_name;  // last scope part -> loaders
  bool empty() const { return loaders.empty(); }
};

inline constexpr size_t kMaxListed = 4;           // binaries named per group
inline constexpr size_t kMaxHeaderReads = 16;     // cubin ELF headers read per group
inline constexpr size_t kMaxGroupsPerLoader = 3;  // a function naming more lists every artifact
                                                  // (a downloader), it is no module's

// What one Python module declares and names (one token pass; exposed for tests). `groups` get
// name, path, declared and a declared arch list; `refs` are (scope, group name) pairs, `sources`
// (scope, literal) pairs; `loading` the scopes whose strings name a binary to load (a
// `-D..._CUBIN_PATH=` macro, "x.cubin", "x.so": any string with "cubin" in it or ending in ".so"),
// `calls` the names each scope calls.
struct ModuleArtifacts {
  std::vector<ArtifactGroup> groups;
  std::vector<std::pair<std::string, std::string>> refs;
  std::vector<std::pair<std::string, std::string>> sources;
  std::set<std::string> loading;
  std::map<std::string, std::set<std::string>> calls;
};
ModuleArtifacts ReadModuleArtifacts(const std::string& file, std::string_view source);

// The arch names written inside `text` ("Bmm_E2m1_sm100f.cubin" -> sm_100f, "FmhaSm100aKernel"
// -> sm_100a, "x86_64/sm_103a/" -> sm_103a), each as arch::ParseArch reads it; unknown ones dropped.
std::vector<std::string> ArchNamesIn(std::string_view text);

// Walks `roots` (files and folders, symlinked folders not followed) once and builds the index;
// `installed_only` are walked for installed artifacts only, their Python files not read (apply
// indexes the edited package and looks for its cubins in the rest of site-packages).
ArtifactIndex IndexArtifacts(const std::vector<std::string>& roots,
                             const std::vector<std::string>& installed_only = {});

// The groups as the gate model carries them, for a target: arches, where they come from, and
// whether one of the images runs there.
gate::PrebuiltArtifacts ToPrebuilt(const ArtifactGroup& group, const std::string& via, const arch::Arch& target);

}  // namespace archpatch::scan
