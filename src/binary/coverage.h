// Coverage: whether one file's kernels can run on a target GPU, by CUDA's compatibility rules
// (arch::SassRunsOn, arch::PtxJitsOn; the rules and their sources are in docs/binaries.md).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "arch/arch.h"
#include "binary/image.h"

namespace archpatch::binary {

enum class CoverageStatus {
  kNative,   // a SASS image runs as is
  kPtxJit,   // no SASS fits, but PTX does: the driver compiles it at first launch
  kNoImage,  // nothing fits: "no kernel image is available for execution on the device"
  // No image fits, but the file builds kernels at run time (LTO-IR entries, or it links a runtime
  // compiler): launching does not fail for want of an image; whether the target works depends on
  // what that path builds, which the file alone does not say.
  kRuntimeBuilt,
};

// "native", "ptx-jit", "no-image", "runtime-built": the spelling of --json and the text report.
std::string_view CoverageStatusName(CoverageStatus status);

struct Coverage {
  std::string target;  // "sm_120"
  CoverageStatus status = CoverageStatus::kNoImage;
  std::string image;        // what runs: "sm_120f" or "compute_90" ("" for no-image)
  std::string ptx_version;  // PTX ISA version of `image` when it is PTX
  std::string
      runtime_note;  // runtime-built: what the file holds instead ("3 LTO-IR entries (compute_75); links libnvJitLink")
};

// The verdict for one target. The target is a GPU, so its a/f suffix is dropped (sm_120a and
// sm_120 name the same chip). Relocatable images never count: the runtime does not load them.
Coverage CoverageFor(const BinaryFile& file, const arch::Arch& target);

// Arch order for reports: by number, then plain, a, f.
bool ArchBefore(const arch::Arch& a, const arch::Arch& b);

}  // namespace archpatch::binary
