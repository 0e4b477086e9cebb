// Classify: may a gated block be widened to the target arch? It looks at what the block uses:
// PTX instruction words in inline asm strings, identifiers that name intrinsics, runtime calls or
// CUTLASS/CuTe atoms (rules/features.yaml), and calls it cannot see into. Functions and
// function-like macros defined in the same file are followed (they are code it can see).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "arch/arch.h"
#include "gate/finding.h"
#include "hazard/features.h"
#include "hazard/source.h"

namespace archpatch::hazard {

// The gate model holds the answer (gate::WidenHazard); "widen-safe", "widen-unsafe", "unknown".
using Safety = gate::WidenSafety;
inline std::string_view SafetyName(Safety s) { return gate::WidenSafetyName(s); }

// One arch-specific thing the block uses.
struct FeatureUse {
  const Feature* feature = nullptr;
  std::string found;  // the PTX word or identifier as written ("wgmma.mma_async.sync.aligned...")
  int line = 0, column = 0;
  std::string via;  // "" when in the block itself, else the helper it was found in ("mma_sm90")
};

struct Classification {
  Safety safety = Safety::kSafe;
  std::vector<FeatureUse> uses;           // everything arch-specific found
  std::vector<FeatureUse> missing;        // the uses the target lacks (widen-unsafe)
  std::vector<std::string> unseen_calls;  // calls into code not in this file (unknown)
  bool target_variant_hint = false;       // the target's `a` variant would have what is missing
  std::string specific_macro;             // unknown because the chain tests this macro
                                          // (arch::ArchSpecificMacroIn), not for unseen calls
};

// Classifies the bytes [begin, end) of the file `source` was parsed from, for `target`.
// Unsafe wins over unknown: one missing instruction is enough to say no.
Classification ClassifyBlock(const ParsedSource& source, std::string_view contents, size_t begin, size_t end,
                             const arch::Arch& target, const FeatureTable& table);

// The instruction words of one string literal token as written ("\"wgmma.fence.sync.aligned;\\n\"").
std::vector<std::string> PtxWords(std::string_view literal);

}  // namespace archpatch::hazard
