#include "cuda/root_cause.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>

#include "arch/arch.h"
#include "cuda/macro_env.h"
#include "util/identifier.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace archpatch::cuda {
namespace {

size_t BlockBegin(const Finding& f) { return f.block ? f.block->bytes.begin : f.span.begin; }

// The definer of `macro` for finding `i`: the last one before it in its own file, else the first
// one of another file. Never `i` itself (an include guard tests what it defines).
std::optional<size_t> Definer(const std::vector<Finding>& findings, const std::vector<size_t>& definers, size_t i) {
  std::optional<size_t> same_file, elsewhere;
  for (size_t d : definers) {
    if (d == i) continue;
    if (findings[d].file == findings[i].file) {
      if (BlockBegin(findings[d]) < findings[i].span.begin) same_file = d;
    } else if (!elsewhere) {
      elsewhere = d;
    }
  }
  return same_file ? same_file : elsewhere;
}

struct NeededFeature {
  std::string id;
  std::string what;
};

std::vector<NeededFeature> Needs(const Finding& f) {
  std::vector<NeededFeature> out;
  if (!f.widen) return out;
  for (const gate::FeatureUse& n : f.widen->needs) out.push_back({n.feature, n.what});
  return out;
}

bool WidenUnknown(const Finding& f) { return f.widen && f.widen->safety == gate::WidenSafety::kUnknown; }

std::string Place(const Finding& f) { return fmt::format("{}:{}", f.file, f.line); }

// (file, line of the '#') -> its directive finding.
struct LineHash {
  size_t operator()(const std::pair<std::string_view, int>& at) const {
    return std::hash<std::string_view>()(at.first) ^ (static_cast<size_t>(at.second) * 0x9E3779B97F4A7C15ULL);
  }
};
using GatesByLine = std::unordered_map<std::pair<std::string_view, int>, size_t, LineHash>;

std::optional<size_t> EmptyingGate(const Finding& kernel, const GatesByLine& gate_at) {
  if (!kernel.empty_kernel) return std::nullopt;
  for (const gate::KernelGate& g : kernel.empty_kernel->gates) {
    auto it = gate_at.find({std::string_view(kernel.file), g.line});
    if (it != gate_at.end()) return it->second;
  }
  return std::nullopt;
}

WidenClosure Closure(const std::vector<Finding>& findings, const RootCause& rc) {
  WidenClosure w;
  const Finding& root = findings[rc.root];
  std::map<std::string, std::vector<size_t>> by_feature;  // feature id -> places needing it
  std::map<std::string, std::string> what;
  bool unknown = WidenUnknown(root);
  std::set<std::string> variants;  // of the blocks that need something, each one's ("" for none)
  auto add = [&](size_t i) {
    const std::vector<NeededFeature> needs = Needs(findings[i]);
    for (const NeededFeature& n : needs) {
      by_feature[n.id].push_back(i);
      what[n.id] = n.what;
    }
    if (!needs.empty()) variants.insert(findings[i].widen->available_on_variant);
    if (WidenUnknown(findings[i])) unknown = true;
  };
  add(rc.root);
  for (size_t p : rc.places) add(p);
  for (const auto& [id, places] : by_feature) {
    w.features.push_back(id);
    const bool self = std::find(places.begin(), places.end(), rc.root) != places.end();
    if (self && places.size() == 1) {
      w.reasons.push_back(fmt::format("the block itself uses {} ({})", id, what[id]));
    } else {
      w.reasons.push_back(fmt::format("it enables {} block{} that use{} {} ({}), first at {}", places.size(),
                                      places.size() == 1 ? "" : "s", places.size() == 1 ? "s" : "", id, what[id],
                                      Place(findings[places.front()])));
    }
  }
  if (variants.size() == 1) w.available_on_variant = *variants.begin();
  if (!w.features.empty()) {
    w.verdict = gate::WidenSafety::kUnsafe;
  } else if (unknown || !root.widen) {
    w.verdict = gate::WidenSafety::kUnknown;
    w.reasons.push_back(root.widen ? "a block it enables calls code archpatch cannot see"
                                   : "no hazard check for this kind of gate");
  } else {
    w.reasons.push_back(rc.places.empty() ? "the block uses no arch-specific instruction"
                                          : fmt::format("neither the block nor the {} block{} it enables use an "
                                                        "arch-specific instruction",
                                                        rc.places.size(), rc.places.size() == 1 ? "" : "s"));
  }
  return w;
}

// The target a hazard check named ("sm_120"), for the sentence of a hardware-exclusive root.
std::string TargetName(const Finding& f) {
  if (f.widen) return f.widen->target;
  if (f.empty_kernel) return f.empty_kernel->target;
  return "the target";
}

int ArchNumber(const std::string& name) {
  static thread_local std::map<std::string, int> numbers;
  auto it = numbers.find(name);
  if (it != numbers.end()) return it->second;
  Result<arch::Arch> a = arch::ParseArch(name);
  return numbers[name] = a ? a->number() : 0;
}

std::pair<ExclusionClass, std::string> ClassFromVerdict(const Finding& f) {
  const gate::RuntimeForm* runtime = f.runtime();
  if (runtime && runtime->form == "check-macro") {
    return {ExclusionClass::kRefusal, "the check fails on the target"};
  }
  const int me = ArchNumber(f.verdict.front().arch);
  std::set<int> others;
  int oldest = me;
  for (size_t a = 1; a < f.verdict.size(); ++a) {
    oldest = std::min(oldest, ArchNumber(f.verdict[a].arch));
    if (f.verdict[a].value != Tri::kFalse) others.insert(ArchNumber(f.verdict[a].arch));
  }
  if (others.size() == 1 && *others.begin() != me) {
    return {ExclusionClass::kOtherArch, fmt::format("a path for sm_{} alone", *others.begin())};
  }
  const gate::PythonForm* python = f.python();
  const std::string shape = python ? python->shape : "", op = python ? python->op : "";
  // `if sm_version < 90: ...` true only on older arches: a path or check for them; the target,
  // newer, compares false and goes on (a fallback, or a requirement it meets).
  if (python && shape == "comparison" && (op == "<" || op == "<=") && !others.empty() && *others.rbegin() < me &&
      *others.begin() == oldest) {
    return {ExclusionClass::kLegacy, "a comparison only older arches satisfy; the target is newer"};
  }
  // `sm100f_nvcc_flags = ["-gencode=..."]` at module level: a table of flags, not a gate.
  if (python && shape == "nvcc-arch-flag" && f.scope.empty()) {
    return {ExclusionClass::kOtherArch, "a module-level table of nvcc flags, not a gate"};
  }
  if (f.nv_target()) {
    return {ExclusionClass::kFastPath, "the target takes another <nv/target> branch"};
  }
  return {ExclusionClass::kRefusal, "the target is refused or skipped here"};
}

}  // namespace

std::vector<std::string> TestedMacros(const Finding& f) {
  const gate::DirectiveForm* directive = f.directive();
  std::string text = directive ? directive->effective : f.kind == gate::Kind::kCudaGate ? f.text : "";
  std::vector<std::string> out;
  ForEachIdentifier(text, [&](std::string_view word, size_t) {
    std::string name(word);
    if (!IsCompilerMacro(name) && std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
    return false;
  });
  return out;
}

void AssignClasses(std::vector<Finding>& findings) {
  for (Finding& f : findings) {
    if (f.exclusion) continue;
    if (f.kind == gate::Kind::kEmptyKernel) {
      f.exclusion = gate::Classification{ExclusionClass::kEmpty, "the kernel compiles to an empty body on the target",
                                         std::nullopt};
      continue;
    }
    if (f.verdict.empty()) continue;
    auto [klass, reason] = ClassFromVerdict(f);
    f.exclusion = gate::Classification{klass, reason, std::nullopt};
  }
}

ExclusionClass ClassOf(const Finding& f) { return f.exclusion ? f.exclusion->klass : ExclusionClass::kRefusal; }

std::vector<size_t> LinkRootCauses(const std::vector<Finding>& findings) {
  // Hashed, keyed by views of the findings' own strings: as ordered maps of copied strings they
  // were 0.4-0.6 ms of the grouping's 2.5 ms on FlashInfer + CUTLASS, 0.3 ms since.
  std::unordered_map<std::string_view, std::vector<size_t>> definers;
  GatesByLine gate_at;
  for (size_t i = 0; i < findings.size(); ++i) {
    if (findings[i].block) {
      for (const std::string& m : findings[i].block->defines) definers[m].push_back(i);
    }
    if (const gate::DirectiveForm* d = findings[i].directive()) {
      gate_at.emplace(std::pair(std::string_view(findings[i].file), d->directive_line), i);
    }
  }
  std::vector<std::optional<size_t>> parent(findings.size());
  for (size_t i = 0; i < findings.size(); ++i) {
    if (findings[i].kind == gate::Kind::kEmptyKernel) {  // the gate that switches the body off is the cause
      parent[i] = EmptyingGate(findings[i], gate_at);
      continue;
    }
    for (const std::string& m : TestedMacros(findings[i])) {
      auto it = definers.find(m);
      if (it == definers.end()) continue;
      parent[i] = Definer(findings, it->second, i);
      if (parent[i]) break;
    }
  }
  std::vector<size_t> root(findings.size());
  for (size_t i = 0; i < findings.size(); ++i) {
    size_t at = i;
    std::set<size_t> seen = {i};
    while (parent[at] && seen.insert(*parent[at]).second) at = *parent[at];  // a cycle stops where it closes
    root[i] = at;
  }
  return root;
}

std::vector<RootCause> CollectRootCauses(const std::vector<Finding>& findings) {
  const std::vector<size_t> root = LinkRootCauses(findings);
  constexpr size_t kNone = static_cast<size_t>(-1);
  std::vector<size_t> position(findings.size(), kNone);  // root finding -> its place in `out`
  std::vector<RootCause> out;
  for (size_t i = 0; i < findings.size(); ++i) {
    size_t& at = position[root[i]];
    if (at == kNone) at = out.size(), out.push_back(RootCause{root[i], {}, ExclusionClass::kEmpty, "", {}});
    if (i != root[i]) out[at].places.push_back(i);
  }
  for (RootCause& rc : out) {
    const Finding& r = findings[rc.root];
    const bool defines_only = r.block && r.block->holds == gate::BlockHolds::kDefines && !rc.places.empty();
    // The finding whose class the root cause takes: the root itself unless it only #defines, then
    // the most important class among its places that keeps the target out.
    size_t best = rc.root;
    bool chosen = !defines_only;
    for (size_t p : rc.places) {
      const ExclusionClass c = ClassOf(findings[p]);
      if (!KeepsTargetOut(c)) continue;
      const ExclusionClass held = ClassOf(findings[best]);
      if (!chosen || !KeepsTargetOut(held) || gate::ClassRank(c) < gate::ClassRank(held)) best = p, chosen = true;
    }
    rc.klass = ClassOf(findings[best]);
    rc.reason = findings[best].exclusion ? findings[best].exclusion->reason : "";
    if (best != rc.root) rc.reason = fmt::format("{} ({})", rc.reason, Place(findings[best]));
    rc.widen = Closure(findings, rc);
    if (!rc.widen.features.empty() && rc.klass != ExclusionClass::kLegacy) {
      rc.klass = ExclusionClass::kHardwareExclusive;
      rc.reason = fmt::format("needs {}, which {} lacks", fmt::join(rc.widen.features, ", "), TargetName(r));
      if (!rc.widen.available_on_variant.empty())
        rc.reason += fmt::format(" ({} has it)", rc.widen.available_on_variant);
    }
  }
  return out;
}

}  // namespace archpatch::cuda
