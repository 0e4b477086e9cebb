#include "scan/groups.h"

#include <algorithm>
#include <tuple>
#include <filesystem>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "arch/arch.h"
#include "cuda/root_cause.h"

namespace archpatch::scan {
namespace {

std::string Trimmed(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  if (path.starts_with("./")) path = path.substr(2);
  return path;
}

std::string Kernels(const Finding& f) {
  if (!f.block || f.block->kernels.empty()) return "";
  std::vector<std::string> names = f.block->kernels;
  if (names.size() > 3) names.resize(3), names.push_back("...");
  return fmt::format("{}", fmt::join(names, ", "));
}

std::string LastScopePart(const std::string& scope) {
  size_t dot = scope.rfind('.');
  size_t colons = scope.rfind("::");
  size_t at = std::max(dot == std::string::npos ? 0 : dot + 1, colons == std::string::npos ? 0 : colons + 2);
  return scope.substr(at);
}

// The target's arch-specific variant ("sm_120a") when the gate refuses the target (a plain arch:
// its verdict comes first) and admits that variant; "" otherwise.
std::string AdmittedOnVariant(const Finding& root) {
  if (root.verdict.empty() || root.verdict.front().value != Tri::kFalse) return "";
  const Result<arch::Arch> target = arch::ParseArch(root.verdict.front().arch);
  if (!target || target->variant != arch::Variant::kPlain) return "";
  const std::string variant = arch::Arch{target->major, target->minor, arch::Variant::kArchSpecific}.name();
  for (const gate::ArchVerdict& v : root.verdict) {
    if (v.arch == variant) return v.value == Tri::kTrue ? variant : "";
  }
  return "";
}

// A #define block is as unsafe to widen as what it switches on: the root's own verdict becomes
// the closure's, with the reasons, so --json findings and the hazard lines say it too.
void InheritWiden(Finding& root, const cuda::RootCause& rc) {
  if (rc.places.empty() || !root.widen) return;
  if (root.widen->safety == rc.widen.verdict) return;
  root.widen->safety = rc.widen.verdict;
  std::string sentence = fmt::format("Widening this gate is {}: {}.",
                                     rc.widen.verdict == gate::WidenSafety::kUnsafe ? "unsafe" : "not known to be safe",
                                     fmt::join(rc.widen.reasons, "; "));
  root.widen->reason = sentence;
  root.explain = {sentence};
  root.enables = rc.places.size();
}

}  // namespace

std::string DistributionOf(const std::string& file, const std::vector<std::string>& paths) {
  const std::string marker = "site-packages/";
  if (size_t at = file.find(marker); at != std::string::npos) {
    std::string rest = file.substr(at + marker.size());
    std::string first = rest.substr(0, rest.find('/'));
    if (first.size() > 3 && first.ends_with(".py")) first.resize(first.size() - 3);
    return first;
  }
  std::string best;
  for (const std::string& p : paths) {
    std::string root = Trimmed(p);
    if ((file == root || file.starts_with(root + "/")) && root.size() > best.size()) best = root;
  }
  if (!best.empty()) return best;
  return Trimmed(file).substr(0, Trimmed(file).find('/'));
}

std::string SwitchesOff(const Finding& root) {
  std::string kernels = Kernels(root);
  if (!kernels.empty()) return "kernel " + kernels;
  if (!root.scope.empty()) {
    const std::string last = LastScopePart(root.scope);
    const bool python = root.kind == gate::Kind::kPythonGate;
    if (python && last.starts_with("gen_")) return "module " + last;
    return (python ? "python " : "function ") + root.scope;
  }
  return "file " + std::filesystem::path(root.file).filename().string();
}

std::vector<gate::Group> BuildGroups(std::vector<Finding>& findings, const std::vector<std::string>& paths) {
  cuda::AssignClasses(findings);
  std::vector<gate::Group> groups;
  for (const cuda::RootCause& rc : cuda::CollectRootCauses(findings)) {
    gate::Group g;
    g.root = rc.root;
    g.places = rc.places;
    g.klass = rc.klass;
    g.reason = rc.reason;
    g.widen = rc.widen.verdict;
    g.widen_reasons = rc.widen.reasons;
    g.features = rc.widen.features;
    g.available_on_variant = rc.widen.available_on_variant;
    g.admitted_on_variant = AdmittedOnVariant(findings[rc.root]);
    g.distribution = DistributionOf(findings[rc.root].file, paths);
    InheritWiden(findings[rc.root], rc);
    g.switches_off = SwitchesOff(findings[rc.root]);
    for (size_t p : rc.places) {
      if (findings[p].kind == gate::Kind::kEmptyKernel) g.switches_off = "kernel " + findings[p].text;
    }
    groups.push_back(std::move(g));
  }
  // Compared in place: a tuple of each distribution's copy was two allocations a comparison.
  std::stable_sort(groups.begin(), groups.end(), [](const gate::Group& a, const gate::Group& b) {
    const int ra = gate::ClassRank(a.klass), rb = gate::ClassRank(b.klass);
    return std::tie(a.distribution, ra) < std::tie(b.distribution, rb);
  });
  for (size_t i = 0; i < groups.size(); ++i) {
    groups[i].id = fmt::format("G{}", i + 1);
    const Finding& r = findings[groups[i].root];
    for (size_t p : groups[i].places) {
      findings[p].root = gate::RootLink{groups[i].id, r.file, r.line, r.column};
    }
  }
  return groups;
}

}  // namespace archpatch::scan
