// Classify: may a gated block be widened to the target arch? It looks at what the block uses:
// PTX instruction words in inline asm strings, identifiers that name intrinsics, runtime calls or
// CUTLASS/CuTe atoms (rules/features.yaml), and calls it cannot see into. Functions and
// function-like macros defined in the same file are followed (they are code it can see).
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
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

// The table's answers for one file, kept across its blocks: a gate's block repeats its
// identifiers and instructions, nested gates and the helpers they call are scanned again for each
// gate, and each new text is tried against the table's globs. Keys view the file's bytes (the
// ParsedSource's contents); one cache serves one file and one table.
struct MatchCache {
  struct PtxUse {
    const Feature* feature;
    std::string_view word;  // as written (in the literal's first occurrence)
  };
  std::unordered_map<std::string_view, const Feature*> names;  // identifier -> MatchName
  std::unordered_map<std::string_view, const Feature*> ptx;    // instruction word -> MatchPtx
  // String literal as written -> its words the table knows, in order: asm statements repeat their
  // constraint strings ("+f", "r") and lines ("{\n") thousands of times a file.
  std::unordered_map<std::string_view, std::vector<PtxUse>> literals;
};

// Classifies the bytes [begin, end) of the file `source` was parsed from, for `target`.
// Unsafe wins over unknown: one missing instruction is enough to say no. `cache`: the file's
// answers so far (CheckSource shares one across its gates); nullptr: one for this block alone.
Classification ClassifyBlock(const ParsedSource& source, std::string_view contents, size_t begin, size_t end,
                             const arch::Arch& target, const FeatureTable& table, MatchCache* cache = nullptr);

// The instruction words of one string literal token as written ("\"wgmma.fence.sync.aligned;\\n\""),
// as views into `literal`, appended to `words`.
void PtxWordViews(std::string_view literal, std::vector<std::string_view>& words);
// The same, copied.
std::vector<std::string> PtxWords(std::string_view literal);

}  // namespace archpatch::hazard
