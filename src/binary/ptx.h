// PTX text: the header lines that say what it targets (".version 9.0", ".target sm_90a").
#pragma once

#include <string>
#include <string_view>

#include "arch/arch.h"
#include "util/result.h"

namespace archpatch::binary {

struct PtxHeader {
  std::string version;  // PTX ISA version, "9.0"
  arch::Arch target;    // sm_90a in ".target sm_90a" (the PTX is compute_90a)
};

// Reads the first .version and .target directives (comments skipped). Errors when either is
// missing or the target is not an sm name.
Result<PtxHeader> ParsePtxHeader(std::string_view text);

// Whether the bytes look like PTX text: a ".version" directive near the top.
bool LooksLikePtx(std::string_view text);

}  // namespace archpatch::binary
