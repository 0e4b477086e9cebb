// The Rule model: one YAML file under rules/ describing which gates of one installed
// distribution to widen for which target arches. docs/rules.md documents every key.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "arch/arch.h"
#include "cuda/widen.h"
#include "util/result.h"

namespace archpatch::rules {

// How a cuda-gate edit widens a preprocessor condition: cuda's own enum (src/cuda/widen.h).
using Strategy = cuda::WidenStrategy;

// What a python-gate edit adds to the gate's literal (see src/python/widen.h).
enum class AddForm {
  kMajor,       // [9, 10] -> [9, 10, 12]
  kCapability,  // [(9, 0)] -> [(9, 0), (12, 0)]
};

// A preprocessor gate found by the CUDA scanner, selected by a macro its condition mentions and,
// optionally, the enclosing function.
struct CudaGate {
  std::string macro;  // "__CUDA_ARCH__"
  std::string scope;  // "" = any scope
  Strategy strategy = Strategy::kDropBound;
};

// A Python gate found by the Python scanner, selected by scope (suffix match on the dotted
// def/class chain) and the keyword argument or assigned name holding the literal.
struct PythonGate {
  std::string scope;  // "gen_trtllm_comm_module" or "Builder.gen"; "" = any scope
  std::string name;   // "supported_major_versions"; "" = any name
  AddForm add = AddForm::kMajor;
};

// Literal text replacement, the last resort; `old` must occur inside the scope.
struct Replace {
  std::string scope;  // "" = the whole file
  std::string old_text;
  std::string new_text;
};

using EditAction = std::variant<CudaGate, PythonGate, Replace>;

struct Edit {
  std::string file;  // relative to site-packages, as in RECORD; glob characters * ? [ ]
  EditAction action;
  std::optional<int> expect;  // number of matched places (already-satisfied ones included)
  Location where;             // the edit's position in the rule file

  std::string_view KindName() const;  // "cuda-gate", "python-gate", "replace"
};

struct Rule {
  std::string id;            // equals the file name without .yaml
  std::string summary;       // one line
  std::string notes;         // what a user must read before enabling the rule
  std::string distribution;  // normalised as pip does (PEP 503): "flashinfer-python"
  std::string versions;      // PEP 440 specifier set; "" = every version
  std::vector<arch::Arch> targets;
  std::vector<std::string> target_names;  // as written in the file, for printing
  std::vector<std::string> caches;        // cache kinds from rules/caches.yaml
  std::vector<Edit> edits;

  std::filesystem::path path;  // the rule file
  std::string text;            // the rule file's bytes, as parsed
};

// The hex SHA-256 of the rule file's bytes, recorded in plans and the manifest. Taken there, not
// when the rule is read: an audit reads every shipped rule to mark the gates they cover, and the
// first digest loads libcrypto (3.5-4.7 ms of relocations, most of an empty tree's audit).
std::string Sha256Of(const Rule& rule);

std::string_view AddFormName(AddForm a);  // "major", "capability"

}  // namespace archpatch::rules
