#include "binary/coverage.h"

#include <algorithm>
#include <tuple>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace archpatch::binary {

std::string_view CoverageStatusName(CoverageStatus status) {
  switch (status) {
    case CoverageStatus::kNative: return "native";
    case CoverageStatus::kPtxJit: return "ptx-jit";
    case CoverageStatus::kNoImage: return "no-image";
    case CoverageStatus::kRuntimeBuilt: return "runtime-built";
  }
  return "no-image";
}

bool ArchBefore(const arch::Arch& a, const arch::Arch& b) {
  return std::tuple(a.number(), static_cast<int>(a.variant)) < std::tuple(b.number(), static_cast<int>(b.variant));
}

// The driver prefers SASS over PTX and, among SASS, the closest match; reporting the highest
// compatible image names the one it will use in practice.
namespace {

std::string RuntimeNote(const BinaryFile& file) {
  std::vector<std::string> parts;
  if (file.lto_ir_entries > 0) {
    parts.push_back(fmt::format("{} LTO-IR entr{} ({})", file.lto_ir_entries, file.lto_ir_entries == 1 ? "y" : "ies",
                                fmt::join(file.lto_ir_arches, ", ")));
  }
  if (!file.runtime_compilers.empty()) parts.push_back(fmt::format("uses {}", fmt::join(file.runtime_compilers, ", ")));
  return fmt::format("{}", fmt::join(parts, "; "));
}

}  // namespace

Coverage CoverageFor(const BinaryFile& file, const arch::Arch& target) {
  const arch::Arch device = target.plain();
  Coverage coverage;
  coverage.target = device.name();
  const Image* best_sass = nullptr;
  const Image* best_ptx = nullptr;
  for (const Image& image : file.images) {
    if (image.relocatable) continue;
    if (image.kind == ImageKind::kSass && arch::SassRunsOn(image.arch, device)) {
      if (!best_sass || ArchBefore(best_sass->arch, image.arch)) best_sass = &image;
    } else if (image.kind == ImageKind::kPtx && arch::PtxJitsOn(image.arch, device)) {
      if (!best_ptx || ArchBefore(best_ptx->arch, image.arch)) best_ptx = &image;
    }
  }
  if (best_sass) {
    coverage.status = CoverageStatus::kNative;
    coverage.image = best_sass->name();
  } else if (best_ptx) {
    coverage.status = CoverageStatus::kPtxJit;
    coverage.image = best_ptx->name();
    coverage.ptx_version = best_ptx->ptx_version;
  } else if (file.lto_ir_entries > 0 || !file.runtime_compilers.empty()) {
    coverage.status = CoverageStatus::kRuntimeBuilt;
    coverage.runtime_note = RuntimeNote(file);
  }
  return coverage;
}

}  // namespace archpatch::binary
