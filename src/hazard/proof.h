// The compiler proof of a CUDA edit: preprocess the file before and after the edit once per arch
// of the table (one device pass each, `nvcc -gencode arch=compute_X,code=sm_X --cuda -E`, or
// libclang with the same device macros when nvcc is absent) and check, in the compiler's own
// words, that
//   1. every target now compiles the block the edit guards (the edit does what it says);
//   2. no arch older than the oldest target compiles anything different (no collateral damage:
//      a rewrite that also turns code on for sm_75 fails here);
//   3. every arch whose code changes is one archpatch's own evaluation predicted (the blast
//      radius the dry run showed and the manifest records).
//
// The file is preprocessed standalone: its #include and #error lines are blanked first (the same
// bytes and lines stay), so the proof needs no include paths and sees only the file itself; the
// macros the includes would define are undefined in both versions alike, which is all a
// before/after comparison needs. Documented in docs/hazards.md.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "arch/arch.h"
#include "cuda/macro_env.h"
#include "gate/finding.h"
#include "util/result.h"

namespace archpatch::hazard {

enum class ProofEngine { kAuto, kNvcc, kLibclang };

// "auto" | "nvcc" | "libclang".
Result<ProofEngine> ParseProofEngine(std::string_view text);

struct ProofOptions {
  ProofEngine engine = ProofEngine::kAuto;
  std::vector<arch::Arch> arches = arch::AllArches();  // the passes to compare
  cuda::MacroEnv env;                                  // -D/-U for both the passes and the prediction
  std::string nvcc;  // "" : $ARCHPATCH_NVCC, then nvcc on PATH, then /usr/local/cuda/bin/nvcc
};

struct FileProof {
  std::string path;
  std::string engine;  // "nvcc" or "libclang"
  bool ok = false;
  std::vector<std::string> changed;    // arches whose preprocessed code differs, table order
  std::vector<std::string> predicted;  // archpatch's blast radius for the same edit
  std::vector<std::string> reached;    // targets that now compile the guarded block(s)
  std::vector<std::string> problems;   // plain-words reasons the proof failed
  std::vector<std::string> notes;      // passes that could not run, and the like
};

// Proves one file's edit. `edited` are the byte spans of `before` the edit replaced (to find the
// guarded blocks); `targets` the arches the edit is for. Errors when no engine can run at all.
Result<FileProof> ProveEdit(const std::string& path, std::string_view before, std::string_view after,
                            const std::vector<ByteSpan>& edited, const std::vector<arch::Arch>& targets,
                            const ProofOptions& options = {});

// The nvcc the proof would use, or "" when there is none.
std::string FindNvcc(const std::string& preferred = "");

}  // namespace archpatch::hazard
