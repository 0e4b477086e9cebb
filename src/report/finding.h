// Finding: one gate (or hazard) found in a file, with its verdict per arch. Every scanner
// (cuda/, python/, binary/, hazard/) produces these; report/ prints them for people or as JSON.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "util/tri.h"

namespace archpatch {

struct ArchVerdict {
  std::string arch;  // "sm_120a"
  Tri value = Tri::kUnknown;
};

// Byte offsets [begin, end) into the file as it is on disk (BOM included), so a later rewrite
// touches exactly these bytes.
struct ByteSpan {
  size_t begin = 0;
  size_t end = 0;
};

enum class Severity { kInfo, kWarning, kError };

struct Finding {
  std::string file;     // path as given on the command line, or relative to the scanned root
  int line = 0;         // 1-based
  int column = 0;       // 1-based, in bytes
  std::string kind;     // "cuda-gate", "cpp-runtime-gate", "python-gate", "empty-kernel", ...
  std::string text;     // the condition or literal as written (continuations folded)
  std::vector<ArchVerdict> verdict;  // in arch table order
  std::string scope;    // enclosing function/class chain ("gen_trtllm_comm_module"), if any
  ByteSpan span;        // exact bytes of the condition or literal
  Severity severity = Severity::kWarning;
  std::string summary;  // one line for people: what the gate keeps off
  nlohmann::ordered_json details = nlohmann::ordered_json::object();  // kind-specific fields

  Tri VerdictFor(const std::string& arch) const;
};

// The JSON form documented in docs/json.md.
nlohmann::ordered_json ToJson(const Finding& finding);

// Sorts by file, then line, then column: the order every report prints.
void SortFindings(std::vector<Finding>& findings);

std::string_view SeverityName(Severity s);

}  // namespace archpatch
