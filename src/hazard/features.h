// The features table (rules/features.yaml): arch-specific PTX instructions, intrinsics, runtime
// calls and CUTLASS/CuTe atoms, each with the arches that have it and the NVIDIA document that
// says so. The hazard classifier asks it: does the target arch have what this block uses?
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "arch/arch.h"
#include "util/result.h"

namespace archpatch::hazard {

struct Feature {
  std::string id;                   // "wgmma"
  std::string what;                 // for people: "Hopper warpgroup tensor-core MMA"
  std::vector<std::string> ptx;     // globs over one PTX instruction word ("wgmma.*")
  std::vector<std::string> names;   // globs over C++ identifiers ("SM90_64x*", "cudaGridDependencySynchronize")
  std::vector<std::string> arches;  // specs as written: "sm_90a", "sm_100f", "sm_90+"
  std::string source;               // the PTX ISA / CUDA guide section it comes from
  int line = 0;                     // where the entry sits in the YAML (for messages)

  // Whether code compiled for `arch` may use the feature (see ArchSpecMatches).
  bool AvailableOn(const arch::Arch& arch) const;
  // The table's arches that have it, in table order.
  std::vector<std::string> ArchNames() const;

  // ArchNames(), as FeatureTable::IndexGlobs finds them once: every use of the feature a report
  // explains names them, and the classifier ranks matches by their count.
  std::vector<std::string> arch_names;
};

struct FeatureTable {
  std::vector<Feature> features;
  std::vector<std::string> portable;  // names every arch of the table has (never "unknown")
  std::string portable_source;

  // Built by ParseFeatures (IndexGlobs): for each first byte of a text (slot 256: the empty text),
  // the globs that can match it, those starting with that byte or a wildcard, in table order. The
  // classifier asks about every identifier and PTX word of a gated block; it tries those few
  // globs, not all of them.
  struct GlobRef {
    size_t feature;  // index into `features`
    size_t glob;     // index into its `names` or `ptx`
  };
  using GlobIndex = std::array<std::vector<GlobRef>, 257>;
  GlobIndex name_globs, ptx_globs;
  std::vector<std::string> portable_sorted;  // `portable` in order, for IsPortable's binary search
  void IndexGlobs();

  // The most specific feature whose ptx glob matches the instruction word, or nullptr.
  const Feature* MatchPtx(std::string_view word) const;
  // The most specific feature whose name glob matches the identifier, or nullptr.
  const Feature* MatchName(std::string_view identifier) const;
  // False when no name glob can match the identifier (none can match its first byte): MatchName
  // is nullptr without a look.
  bool MayMatchName(std::string_view identifier) const {
    return !name_globs[identifier.empty() ? 256 : static_cast<unsigned char>(identifier[0])].empty();
  }
  bool IsPortable(std::string_view identifier) const;
};

// Parses the YAML text (path only for messages). Strict: unknown keys, a missing `source`, an
// arch spec that names no arch of the table are errors with file:line:column.
Result<FeatureTable> ParseFeatures(std::string_view yaml, const std::string& path);
Result<FeatureTable> LoadFeatures(const std::string& path);

// The table shipped in rules/features.yaml of archpatch's data folder (FindDataDir: found from the
// binary's location). Fatal when it cannot be found or read.
const FeatureTable& DefaultFeatures();

// "sm_90+": every arch numbered 90 or more, any variant. "sm_90a": exactly that arch-specific
// target. "sm_100f": the family: sm_100f and every a/f target of the same major numbered >= 100
// (an arch-specific target has its family's features).
bool ArchSpecMatches(std::string_view spec, const arch::Arch& arch);

// Shell-style glob: '*' any run of characters, '?' one character.
bool GlobMatch(std::string_view pattern, std::string_view text);

}  // namespace archpatch::hazard
