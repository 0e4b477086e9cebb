// The arch model: every GPU target nvcc 13 knows, with its a/f variants, and the device-pass
// macros nvcc defines for each. Everything that says "per arch" iterates AllArches().
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "util/result.h"

namespace archpatch::arch {

// plain (sm_120), arch-specific (sm_120a: exact chip only), family-specific (sm_120f: the family).
enum class Variant { kPlain, kArchSpecific, kFamily };

struct Arch {
  int major = 0;
  int minor = 0;
  Variant variant = Variant::kPlain;

  int number() const { return major * 10 + minor; }  // 120
  int cuda_arch() const { return number() * 10; }    // __CUDA_ARCH__: 1200
  std::string name() const;                          // "sm_120a"
  std::string compute_name() const;                  // "compute_120a"
  Arch plain() const { return Arch{major, minor, Variant::kPlain}; }

  friend bool operator==(const Arch&, const Arch&) = default;
};

// A macro nvcc defines in a device pass: name and value ("" for a bare -DNAME).
struct Macro {
  std::string name;
  std::string value;
};

// Every target of `nvcc --list-gpu-code` (nvcc 13.0) with its a/f variants, in table order:
// by number, then plain, a, f.
const std::vector<Arch>& AllArches();

// Accepts the forms users type: sm_120, sm_120a, sm_120f, compute_120, 120, 12.0, 12.0a, SM120.
// Errors name the input and list the closest known arches.
Result<Arch> ParseArch(std::string_view text);

// An arch as code and build flags spell it, known to nvcc or not, and whether the spelling names
// PTX (compute_90, "9.0+PTX") rather than SASS. Python gates and nvcc flags in strings read
// through this; --arch and rule targets through ParseArch, which also wants a known arch.
struct ArchName {
  Arch arch;
  bool ptx = false;
  std::string text() const;  // "sm_90a", "compute_90"
};

// "sm_120a", "SM120", "compute_90a", "120", "12.0", "12.0a", "9.0+PTX"; nullopt for anything
// else, and for a major outside 2..19: in code, "1" or "300" is no arch.
std::optional<ArchName> ReadArchName(std::string_view text);

// Whether code that names `name` means the GPU `device`: a PTX name the chips its PTX JITs on
// (PtxJitsOn), an `f` name its family, a plain or `a` name its own chip. A plain SASS name is one
// chip here, not SassRunsOn's "equal or higher minor": `arch in ["8.0", "9.0"]` lists chips.
bool NameMeans(const ArchName& name, const Arch& device);

// A comma-separated list of ParseArch forms ("sm_120,sm_121").
Result<std::vector<Arch>> ParseArchList(std::string_view text);

// The macros one device pass for `arch` defines, exactly as `nvcc -gencode
// arch=compute_X,code=sm_X --dryrun` shows them (__CUDA_ARCH__, __CUDA_ARCH_LIST__,
// __CUDA_ARCH_SPECIFIC__, __CUDA_ARCH_FAMILY_SPECIFIC__, __CUDA_ARCH_FEAT_SMxxx_ALL), plus the
// compiler-version macros of nvcc 13.0 (__CUDACC__, __NVCC__, __CUDACC_VER_MAJOR__, ...).
std::vector<Macro> DeviceMacros(const Arch& arch);

// The first macro `text` names that nvcc defines only when compiling for an arch-specific or
// family-specific target (__CUDA_ARCH_FEAT_SM90_ALL, __CUDA_ARCH_SPECIFIC__,
// __CUDA_ARCH_FAMILY_SPECIFIC__), or "" when it names none. Code behind such a test is written for
// that chip's own instructions (wgmma, tcgen05), often in headers a file-level check never reads.
std::string_view ArchSpecificMacroIn(std::string_view text);

// Whether SASS built for `image` runs on the GPU `device` (CUDA's binary compatibility rules).
bool SassRunsOn(const Arch& image, const Arch& device);

// Whether PTX built for `ptx` (compute_XY[a|f]) can be JIT-compiled for the GPU `device`:
// plain PTX on any arch of equal or higher number; `a` PTX only on that exact chip; `f` PTX on
// the chips of its family (CUDA's PTX compatibility rules; see arch.cc).
bool PtxJitsOn(const Arch& ptx, const Arch& device);

// Whether the arch is known to exist as real silicon a user can name with --arch.
bool IsKnown(const Arch& arch);

}  // namespace archpatch::arch
