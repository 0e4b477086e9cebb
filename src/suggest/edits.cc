#include "suggest/edits.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

namespace archpatch::suggest {
namespace {

// The macro a cuda-gate edit selects by: __CUDA_ARCH__ when the condition names it, else the first
// __CUDA_ARCH* macro it names (__CUDA_ARCH_SPECIFIC__, __CUDA_ARCH_FAMILY_SPECIFIC__, ...).
std::string ArchMacroOf(std::string_view text) {
  std::string first;
  for (size_t i = 0; i < text.size();) {
    if (!(std::isalpha(static_cast<unsigned char>(text[i])) || text[i] == '_')) { ++i; continue; }
    size_t j = i;
    while (j < text.size() && (std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '_')) ++j;
    const std::string_view word = text.substr(i, j - i);
    if (word == "__CUDA_ARCH__") return std::string(word);
    if (first.empty() && word.starts_with("__CUDA_ARCH")) first = word;
    i = j;
  }
  return first;
}

const plan::Place* PlaceAt(const plan::FilePlaces& places, size_t begin) {
  for (const plan::Place& p : places.places) {
    if (p.begin == begin) return &p;
  }
  return nullptr;
}

// The located edit when it widens the root at `begin`; else why not.
Result<ChosenEdit> Chosen(rules::Edit edit, const Candidate& c, std::string_view contents,
                          const std::vector<arch::Arch>& targets) {
  Result<plan::FilePlaces> located = LocateEdit(edit, contents, targets);
  if (!located) return located.error();
  const plan::Place* root = PlaceAt(*located, c.span_begin);
  if (!root) return Error{fmt::format("the edit ({}) does not select the gate", edit.KindName()), {}};
  if (!Changes(*root)) {
    return Error{"the gate's own condition already admits the target: what keeps it out lies around it", {}};
  }
  edit.expect = static_cast<int>(located->places.size());
  return ChosenEdit{std::move(edit), std::move(located->places), {c.group}};
}

Result<ChosenEdit> CudaEdit(const Candidate& c, rules::Edit edit, std::string_view contents,
                            const std::vector<arch::Arch>& targets) {
  if (c.form != "directive" || (c.directive != "if" && c.directive != "elif")) {
    return Error{"not an #if/#elif condition (an #ifdef, <nv/target> or a macro's use): suggest edits #if/#elif only", {}};
  }
  const std::string macro = ArchMacroOf(c.text);
  if (macro.empty()) {
    return Error{"the condition names no __CUDA_ARCH__ macro (a package macro: widen the #define that sets it)", {}};
  }
  std::vector<std::string> tried;
  for (rules::Strategy s : {rules::Strategy::kDropBound, rules::Strategy::kRaiseBound, rules::Strategy::kOrTarget}) {
    edit.action = rules::CudaGate{macro, c.scope, s};
    Result<ChosenEdit> chosen = Chosen(edit, c, contents, targets);
    if (chosen) return chosen;
    tried.push_back(fmt::format("{}: {}", rules::StrategyName(s), chosen.error().message));
  }
  return Error{fmt::format("no strategy widens it ({})", fmt::join(tried, "; ")), {}};
}

Result<ChosenEdit> PythonEdit(const Candidate& c, rules::Edit edit, std::string_view contents,
                              const std::vector<arch::Arch>& targets) {
  if (c.scope.empty() && c.name.empty()) {
    return Error{"a file-level gate with no name: a python-gate edit would select every gate of the file", {}};
  }
  const rules::AddForm add = c.operand == "capability" ? rules::AddForm::kCapability : rules::AddForm::kMajor;
  edit.action = rules::PythonGate{c.scope, c.name, add};
  return Chosen(std::move(edit), c, contents, targets);
}

}  // namespace

bool Changes(const plan::Place& place) { return !place.satisfied && place.after != place.before; }

Result<plan::FilePlaces> LocateEdit(const rules::Edit& edit, std::string_view contents,
                                    const std::vector<arch::Arch>& targets) {
  if (const auto* gate = std::get_if<rules::CudaGate>(&edit.action)) {
    return plan::LocateCudaGates(*gate, edit.file, contents, targets);
  }
  if (const auto* gate = std::get_if<rules::PythonGate>(&edit.action)) {
    return plan::LocatePythonGates(*gate, edit.file, contents, targets);
  }
  return plan::LocateReplacements(std::get<rules::Replace>(edit.action), edit.file, contents);
}

Result<ChosenEdit> EditFor(const Candidate& c, const std::string& relative, std::string_view contents,
                           const arch::Arch& target) {
  rules::Edit edit;
  edit.file = relative;
  const std::vector<arch::Arch> targets{target};
  if (c.kind == "cuda-gate") return CudaEdit(c, std::move(edit), contents, targets);
  if (c.kind == "python-gate") return PythonEdit(c, std::move(edit), contents, targets);
  if (c.kind == "cpp-runtime-gate") {
    return Error{"a C++ runtime check: suggest writes no edit for it (write a replace edit by hand)", {}};
  }
  return Error{fmt::format("suggest writes no edit for a {}", c.kind), {}};
}

}  // namespace archpatch::suggest
