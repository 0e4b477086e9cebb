// Function bodies blanked before a libclang parse that needs none of them: every byte between
// the braces becomes a space (newlines stay, so every offset, line and column stays), except the
// directive lines, which stay as they are. The preprocessor then sees the same chains (no #if
// loses its #endif, every #define stays) and clang parses only the code left. Keeping whole each
// body that held a directive left most of a kernel file to parse (the hazard checks' empty-kernel
// parses; and, until the C++ runtime checks were read from tokens alone, the runtime parse of
// cutlass_fused_moe_kernels.cuh: 245 KB, one capability name).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "cuda/tokens.h"
#include "gate/finding.h"

namespace archpatch::cuda {

// `contents` with the insides of `bodies` blanked. Each body spans its braces ('{' at begin, end
// one past '}'); bodies inside one listed before are skipped. A body that holds a `#` starting no
// directive line (what it is, clang decides) is kept whole.
std::string BlankBodies(std::string_view contents, const std::vector<Token>& tokens,
                        const std::vector<gate::ByteSpan>& bodies);

}  // namespace archpatch::cuda
