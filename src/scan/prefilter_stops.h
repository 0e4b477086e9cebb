// Where the byte prefilter's loop stops (prefilter.cc): at a byte a skip starts at (`#`, `"`,
// `/`), or at a trigger, two or three letters that every name the prefilter looks for holds. Any
// other byte is passed over sixteen at a time (util/byte_block.h): a name without a trigger can
// make no analysis needed, and most of a file is such names, blanks and punctuation.
//
// The triggers, in either case: `sm`, `cc`, `aj`, `nv`, `ino`, `rch`, `pab`. An arch macro holds
// `nv` (NV_PROVIDES_SM_, _NV_TARGET_, ...) or `rch` (__CUDA_ARCH); a capability name holds one of
// cuda::CapabilityNeedles, each of which holds a trigger (`ajor`, `inor`, `sm`, `rch`, `cc`,
// `apabilit`). prefilter_stops_test.cc checks both lists against HoldsTrigger.
#pragma once

#include <cstddef>
#include <string_view>

namespace archpatch::scan {

// The names the prefilter looks for in directives and nv/target: prefixes and whole names.
inline constexpr std::string_view kArchPrefixes[] = {"__CUDA_ARCH", "NV_PROVIDES_SM_",   "NV_IS_EXACTLY_SM_",
                                                     "_NV_TARGET_", "__NV_PROVIDES_SM_", "__NV_IS_EXACTLY_SM_"};
inline constexpr std::string_view kArchNames[] = {"NV_IS_DEVICE", "NV_IS_HOST", "NV_ANY_TARGET", "NV_NO_TARGET"};
inline constexpr std::string_view kNvTargetNames[] = {"NV_IF_TARGET", "NV_IF_ELSE_TARGET", "NV_DISPATCH_TARGET"};

// Whether the loop stops at `at`: a skip's byte there, or a trigger starting there.
bool IsPrefilterStop(std::string_view s, size_t at);

// The first stop at or after `from`; s.size() when none.
size_t NextPrefilterStop(std::string_view s, size_t from);

// Whether `name` holds a trigger.
bool HoldsTrigger(std::string_view name);

}  // namespace archpatch::scan
