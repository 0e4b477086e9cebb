#include "suggest/edits.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "util/identifier.h"

namespace archpatch::suggest {
namespace {

// The macro a cuda-gate edit selects by: __CUDA_ARCH__ when the condition names it, else the first
// __CUDA_ARCH* macro it names.
std::string ArchMacroOf(std::string_view text) {
  std::string first;
  ForEachIdentifier(text, [&](std::string_view word, size_t) {
    if (word.starts_with("__CUDA_ARCH") && (first.empty() || word == "__CUDA_ARCH__")) first = word;
    return false;
  });
  return first;
}

const plan::Place* PlaceAt(const plan::FilePlaces& places, size_t begin) {
  for (const plan::Place& p : places.places) {
    if (p.begin == begin) return &p;
  }
  return nullptr;
}

// Whether `contents` with the edit's changes applied is what a second plan leaves alone: every
// place found again and satisfied (a rule must be satisfied after it is applied, as `rules test`
// checks on after/). A gate whose other conjuncts the widening cannot decide is not.
bool SatisfiedOnceApplied(const rules::Edit& edit, const plan::FilePlaces& located, std::string_view contents,
                          const std::vector<arch::Arch>& targets) {
  std::string after(contents);
  for (auto p = located.places.rbegin(); p != located.places.rend(); ++p) {
    if (Changes(*p)) after.replace(p->begin, p->end - p->begin, p->after);
  }
  Result<plan::FilePlaces> again = LocateEdit(edit, after, targets);
  return again && again->places.size() == located.places.size() &&
         std::all_of(again->places.begin(), again->places.end(), [](const plan::Place& p) { return p.satisfied; });
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
  if (!SatisfiedOnceApplied(edit, *located, contents, targets)) {
    return Error{fmt::format("once widened with this edit ({}), the gate still does not admit the target for sure "
                             "(the rule would never be satisfied)",
                             edit.KindName()),
                 {}};
  }
  edit.expect = static_cast<int>(located->places.size());
  return ChosenEdit{std::move(edit), std::move(located->places), {c.group}};
}

Result<ChosenEdit> CudaEdit(const Candidate& c, rules::Edit edit, std::string_view contents,
                            const std::vector<arch::Arch>& targets) {
  if (c.form != "directive" || (c.directive != "if" && c.directive != "elif")) {
    return Error{"not an #if/#elif condition (an #ifdef, <nv/target> or a macro's use): suggest edits #if/#elif only",
                 {}};
  }
  const std::string specific(arch::ArchSpecificMacroIn(c.text));
  const std::string macro = ArchMacroOf(c.text);
  // __CUDA_ARCH_FEAT_SM90_ALL, __CUDA_ARCH_SPECIFIC__, __CUDA_ARCH_FAMILY_SPECIFIC__ are defined
  // only for an arch-specific target (sm_90a, sm_100f): the code behind them is written for that
  // chip's own instructions (wgmma, tcgen05), often in headers the hazard check does not read.
  if (!specific.empty()) {
    return Error{fmt::format("the condition tests '{}', defined only when compiling for an arch-specific target: "
                             "the code behind it is written for that chip's own instructions",
                             specific),
                 {}};
  }
  if (macro.empty()) {
    return Error{"the condition names no __CUDA_ARCH__ macro (a package macro: widen the #define that sets it)", {}};
  }
  std::vector<std::string> tried;
  for (rules::Strategy s : {rules::Strategy::kDropBound, rules::Strategy::kRaiseBound, rules::Strategy::kOrTarget}) {
    edit.action = rules::CudaGate{macro, c.scope, s};
    Result<ChosenEdit> chosen = Chosen(edit, c, contents, targets);
    if (chosen) return chosen;
    tried.push_back(fmt::format("{}: {}", cuda::WidenStrategyName(s), chosen.error().message));
  }
  return Error{fmt::format("no strategy widens it ({})", fmt::join(tried, "; ")), {}};
}

Result<ChosenEdit> PythonEdit(const Candidate& c, rules::Edit edit, std::string_view contents,
                              const std::vector<arch::Arch>& targets) {
  if (c.scope.empty() && c.name.empty()) {
    return Error{"a file-level gate with no name: a python-gate edit would select every gate of the file", {}};
  }
  // Majors get a major, (major, minor) pairs and compute-capability numbers (100, 120) the
  // target's own; arch-string lists get the target's name either way (docs/rules.md).
  const rules::AddForm add = c.operand == "capability" || c.operand == "compute_capability"
                                 ? rules::AddForm::kCapability
                                 : rules::AddForm::kMajor;
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
