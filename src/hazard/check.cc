#include "hazard/check.h"

#include <algorithm>
#include <map>
#include <set>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "hazard/branches.h"
#include "hazard/empty_kernel.h"
#include "hazard/source.h"

namespace archpatch::hazard {
namespace {

size_t IndexOf(const std::vector<arch::Arch>& arches, const arch::Arch& target) {
  auto it = std::find(arches.begin(), arches.end(), target);
  return it == arches.end() ? arches.size() : static_cast<size_t>(it - arches.begin());
}

std::vector<std::string> NamesWhere(const std::vector<arch::Arch>& arches, const std::vector<Tri>& values, Tri v) {
  std::vector<std::string> out;
  for (size_t i = 0; i < arches.size() && i < values.size(); ++i) {
    if (values[i] == v) out.push_back(arches[i].name());
  }
  return out;
}

// "sm_90, sm_90a, sm_100 and 9 more": short enough for one line of human output.
std::string ShortList(const std::vector<std::string>& names, size_t keep = 6) {
  if (names.size() <= keep) return fmt::format("{}", fmt::join(names, ", "));
  std::vector<std::string> head(names.begin(), names.begin() + keep);
  return fmt::format("{} and {} more", fmt::join(head, ", "), names.size() - keep);
}

// A gate the target is kept out of: false there, true or unknown somewhere else.
bool KeepsTargetOut(const Branch& b, size_t target) {
  if (target >= b.verdict.size() || b.verdict[target] != Tri::kFalse) return false;
  return std::any_of(b.verdict.begin(), b.verdict.end(), [](Tri t) { return t != Tri::kFalse; });
}

// A block that is seen whole and uses nothing arch-specific is still not known to be safe when
// its chain tests a macro defined only for an arch-specific target (`#if
// defined(__CUDA_ARCH_FEAT_SM90_ALL)`, or the #else of `#if !defined(...)`): CUTLASS's sm90
// kernels gate their whole body so, and the wgmma they run is in collective headers the block
// only calls into. Found reading a FlashInfer 0.6.16 root cause that was called widen-safe.
// Per chain, the first branch whose condition tests such a macro: its '#' and the macro.
using SpecificMacros = std::map<int, std::pair<size_t, std::string_view>>;
SpecificMacros SpecificMacrosByChain(const std::vector<Branch>& branches) {
  SpecificMacros out;
  for (const Branch& b : branches) {
    std::string_view m = arch::ArchSpecificMacroIn(b.condition);
    if (!m.empty()) out.emplace(b.chain, std::make_pair(b.directive_begin, m));  // keeps the first
  }
  return out;
}

// The macro when `b` or an earlier branch of its chain tests one, else "".
std::string ArchSpecificMacroOfChain(const SpecificMacros& specific, const Branch& b) {
  auto it = specific.find(b.chain);
  return it != specific.end() && it->second.first <= b.directive_begin ? std::string(it->second.second) : "";
}

gate::FeatureUse UseOf(const FeatureUse& u) {
  return {u.feature->id, u.feature->what, u.found, u.line, u.via, u.feature->ArchNames(), u.feature->source};
}

Finding EmptyKernelFinding(const std::string& path, const KernelBody& k, const std::vector<Branch>& branches,
                           const std::vector<GateHazard>& gates, const CheckOptions& o) {
  Finding f;
  f.file = path;
  f.line = k.line;
  f.column = k.column;
  f.kind = gate::Kind::kEmptyKernel;
  f.severity = Severity::kError;
  f.text = k.name;
  f.scope = k.name;
  f.span = {k.body_begin, k.body_end};
  for (size_t i = 0; i < o.arches.size(); ++i) f.verdict.push_back({o.arches[i].name(), k.has_code[i]});
  const std::string target = o.target.name();
  f.summary = fmt::format(
      "On {} this kernel compiles to an empty body: it would run and return garbage without an error", target);
  gate::EmptyKernel empty{
      k.name, target, NamesWhere(o.arches, k.has_code, Tri::kFalse), NamesWhere(o.arches, k.has_code, Tri::kTrue), {}};
  for (int g : k.gates) {
    const Branch& b = branches[g];
    gate::KernelGate kernel_gate{b.line, b.directive, b.condition, std::nullopt};
    for (const GateHazard& h : gates) {
      if (h.condition_span.begin == b.condition_begin) kernel_gate.widen = WidenOf(h.widen, o.target);
    }
    empty.gates.push_back(std::move(kernel_gate));
  }
  f.empty_kernel = std::move(empty);
  return f;
}

GateHazard GateOf(const Branch& b, const ParsedSource& source, const CheckOptions& o, const FeatureTable& table,
                  const SpecificMacros& specific, MatchCache& matches) {
  GateHazard g;
  g.line = b.line;
  g.column = b.column;
  g.directive = b.directive;
  g.condition = b.condition;
  g.condition_span = {b.condition_begin, b.condition_end};
  g.block = {b.body_begin, b.body_end};
  g.first_line = source.lines.Line(b.body_begin);
  g.last_line = source.lines.Line(b.body_end) - 1;
  g.verdict = b.verdict;
  g.widen = ClassifyBlock(source, source.contents, b.body_begin, b.body_end, o.target, table, &matches);
  if (g.widen.safety == Safety::kSafe) g.widen.specific_macro = ArchSpecificMacroOfChain(specific, b);
  if (!g.widen.specific_macro.empty()) g.widen.safety = Safety::kUnknown;
  return g;
}

// Gates classified a share at a time when the file has enough of them to share.
constexpr size_t kGatesPerShare = 32;

// The hazards of the gates that keep the target out, in file order. With CheckOptions::loops, a
// file of hundreds of gates offers them to idle threads a share at a time: the calling thread
// keeps the file's match cache, a helper starts one per share (a cache only saves repeated
// table lookups; the answers are the same).
std::vector<GateHazard> GatesOf(const std::vector<Branch>& branches, size_t target, const ParsedSource& source,
                                const CheckOptions& o, const FeatureTable& table) {
  const SpecificMacros specific = SpecificMacrosByChain(branches);
  std::vector<const Branch*> out_of_target;
  for (const Branch& b : branches) {
    if (KeepsTargetOut(b, target)) out_of_target.push_back(&b);
  }
  std::vector<GateHazard> gates(out_of_target.size());
  MatchCache matches;  // the gates' blocks nest and call the same helpers: one cache for the file
  auto classify = [&](size_t first, size_t end, MatchCache& cache) {
    for (size_t i = first; i < end; ++i) gates[i] = GateOf(*out_of_target[i], source, o, table, specific, cache);
  };
  const size_t shares = (gates.size() + kGatesPerShare - 1) / kGatesPerShare;
  if (!o.loops || shares < 2) {
    classify(0, gates.size(), matches);
    return gates;
  }
  const std::thread::id owner = std::this_thread::get_id();
  o.loops->Run(shares, [&](size_t share) {
    const size_t first = share * kGatesPerShare, end = std::min(gates.size(), first + kGatesPerShare);
    MatchCache own;
    classify(first, end, std::this_thread::get_id() == owner ? matches : own);
  });
  return gates;
}

}  // namespace

gate::WidenHazard WidenOf(const Classification& c, const arch::Arch& target) {
  gate::WidenHazard w;
  w.safety = c.safety;
  w.target = target.name();
  for (const FeatureUse& u : c.missing) w.needs.push_back(UseOf(u));
  for (const FeatureUse& u : c.uses) w.uses.push_back(UseOf(u));
  w.unseen_calls = c.unseen_calls;
  if (c.target_variant_hint) {
    w.available_on_variant = arch::Arch{target.major, target.minor, arch::Variant::kArchSpecific}.name();
  }
  return w;
}

std::string WidenSentence(const Classification& c, const arch::Arch& target) {
  const std::string t = target.name();
  switch (c.safety) {
    case Safety::kUnsafe: {
      const FeatureUse& u = c.missing.front();
      std::string s =
          fmt::format("Widening this gate to {} is unsafe: the block uses {} ('{}', {}), which exists only on {}", t,
                      u.feature->id, u.found, u.feature->what, ShortList(u.feature->ArchNames()));
      if (c.missing.size() > 1) s += fmt::format(" (and {} more such features)", c.missing.size() - 1);
      if (c.target_variant_hint) {
        s += fmt::format("; it would work if the code is compiled for {} instead of {}",
                         arch::Arch{target.major, target.minor, arch::Variant::kArchSpecific}.name(), t);
      }
      return s + ".";
    }
    case Safety::kUnknown:
      if (!c.specific_macro.empty()) {
        return fmt::format(
            "Widening this gate to {} is not known to be safe: the condition tests '{}', which nvcc "
            "defines only for an arch-specific target; the code behind it is written for that "
            "chip's own instructions, often in headers this block only calls into.",
            t, c.specific_macro);
      }
      return fmt::format(
          "Widening this gate to {} may or may not be safe: the block calls code archpatch cannot "
          "see ({}); check it by hand or prove it with 'archpatch apply --verify'.",
          t, ShortList(c.unseen_calls, 4));
    case Safety::kSafe:
      if (c.uses.empty()) {
        return fmt::format("Widening this gate to {} looks safe: the block uses no arch-specific instruction.", t);
      }
      return fmt::format("Widening this gate to {} looks safe: what the block needs ({}) exists on {}.", t,
                         c.uses.front().feature->id, t);
  }
  return "";
}

// A kernel worth a libclang parse per arch: empty on the target, real somewhere else.
bool EmptyOnTargetOnly(const KernelBody& k, size_t target) {
  if (target >= k.has_code.size() || k.has_code[target] != Tri::kFalse) return false;
  return std::any_of(k.has_code.begin(), k.has_code.end(), [](Tri t) { return t == Tri::kTrue; });
}

Result<FileHazards> CheckFile(const std::string& path, std::string_view contents, const CheckOptions& o) {
  return CheckSource(path, LexSource(contents), o);
}

Result<FileHazards> CheckSource(const std::string& path, const ParsedSource& source, const CheckOptions& o) {
  const FeatureTable& table = o.features ? *o.features : DefaultFeatures();
  // The lexer is enough for the gates and a first look at the kernels; libclang parses (once per
  // group of arches) only a file with a kernel that looks empty on the target and whose tokens
  // leave a doubt (KernelBody::settled).
  const std::string_view contents = source.contents;
  const std::vector<Branch> branches = o.directives && o.verdicts
                                           ? BranchesOf(*o.directives, *o.verdicts)
                                           : FindBranches(contents, source.tokens, o.arches, o.env);
  const size_t target = IndexOf(o.arches, o.target);
  FileHazards out;
  out.gates = GatesOf(branches, target, source, o, table);
  std::vector<KernelBody> empty;  // on the target only, by the tokens or the parses
  std::set<size_t> settled;       // the bodies the tokens settle
  bool unsettled = false;         // a kernel the tokens find empty, which the parses confirm
  for (KernelBody& k : QuickKernels(contents, source, branches, o.arches.size())) {
    if (k.settled) settled.insert(k.body_begin);
    if (!EmptyOnTargetOnly(k, target)) continue;
    unsettled = unsettled || !k.settled;
    if (k.settled) empty.push_back(std::move(k));
  }
  if (unsettled) {
    const std::string kernels = HostParseBytes(contents, source);
    Result<ParsedSource> host = Parse(path, kernels);
    if (!host) return host.error();
    for (KernelBody& k : AnalyzeKernels(path, kernels, *host, branches, o.arches)) {
      if (!settled.count(k.body_begin) && EmptyOnTargetOnly(k, target)) empty.push_back(std::move(k));
    }
  }
  std::sort(empty.begin(), empty.end(),
            [](const KernelBody& a, const KernelBody& b) { return a.body_begin < b.body_begin; });
  for (const KernelBody& k : empty) out.empty_kernels.push_back(EmptyKernelFinding(path, k, branches, out.gates, o));
  return out;
}

void AnnotateGateFindings(std::vector<Finding>& findings, const FileHazards& hazards, const arch::Arch& target) {
  // Gates by where their condition starts (several may share it, each annotates in turn).
  std::multimap<size_t, const GateHazard*> by_begin;
  for (const GateHazard& g : hazards.gates) by_begin.emplace(g.condition_span.begin, &g);
  for (Finding& f : findings) {
    if (f.kind != gate::Kind::kCudaGate) continue;
    auto [first, last] = by_begin.equal_range(f.span.begin);
    for (auto it = first; it != last; ++it) {
      const GateHazard& g = *it->second;
      f.widen = WidenOf(g.widen, target);
      f.widen->reason = WidenSentence(g.widen, target);
    }
  }
}

std::vector<std::string> ExplainLines(const Finding& f) {
  std::vector<std::string> out;
  if (f.empty_kernel) {  // the summary itself is printed as the finding's meaning
    out.push_back(fmt::format("It has a real body on {}.", ShortList(f.empty_kernel->real_body_on)));
    for (const gate::KernelGate& g : f.empty_kernel->gates) {
      std::string line =
          fmt::format("The body is switched off by '#{} {}' at line {}", g.directive, g.condition, g.line);
      if (g.widen) line += fmt::format(" (widening it: {})", gate::WidenSafetyName(g.widen->safety));
      out.push_back(line + ".");
    }
    out.push_back("Widen the CUDA gate too (not only the Python one), or keep the target off this kernel.");
    return out;
  }
  if (f.widen && !f.widen->reason.empty()) out.push_back(f.widen->reason);
  return out;
}

}  // namespace archpatch::hazard
