#include "hazard/blast_radius.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "cuda/condition.h"
#include "hazard/branches.h"
#include "hazard/source.h"

namespace archpatch::hazard {
namespace {

// The branches of one chain, and every branch nested in them.
bool InChainOrBelow(const std::vector<Branch>& branches, int index, int chain) {
  for (int i = index; i >= 0; i = branches[i].parent) {
    if (branches[i].chain == chain) return true;
  }
  return false;
}

Result<std::vector<Branch>> BranchesOf(const std::string& path, std::string_view contents, const cuda::MacroEnv& env,
                                       const std::vector<arch::Arch>& arches) {
  Result<ParsedSource> parse = Parse(path, contents);
  if (!parse) return parse.error();
  return FindBranches(contents, parse->tokens, arches, env);
}

std::vector<VerdictChange> Everything(const std::vector<arch::Arch>& arches) {
  std::vector<VerdictChange> out;
  for (const arch::Arch& a : arches) out.push_back({a.name(), Tri::kUnknown, Tri::kUnknown});
  return out;
}

}  // namespace

Result<std::vector<VerdictChange>> BlastRadius(std::string_view before_condition, std::string_view after_condition,
                                               const cuda::MacroEnv& env, const std::vector<arch::Arch>& arches) {
  Result<cuda::Condition> before = cuda::ParseCondition(before_condition);
  if (!before) return Error{fmt::format("'{}': {}", before_condition, before.error().message), {}};
  Result<cuda::Condition> after = cuda::ParseCondition(after_condition);
  if (!after) return Error{fmt::format("'{}': {}", after_condition, after.error().message), {}};
  const std::vector<Tri> b = cuda::EvaluatePerArch(*before, arches, env);
  const std::vector<Tri> a = cuda::EvaluatePerArch(*after, arches, env);
  std::vector<VerdictChange> out;
  for (size_t i = 0; i < arches.size(); ++i) {
    if (b[i] != a[i]) out.push_back({arches[i].name(), b[i], a[i]});
  }
  return out;
}

std::vector<VerdictChange> FileBlastRadius(const std::string& path, std::string_view before, std::string_view after,
                                           const cuda::MacroEnv& env, const std::vector<arch::Arch>& arches,
                                           size_t edit_begin, size_t edit_end) {
  Result<std::vector<Branch>> b = BranchesOf(path, before, env, arches);
  Result<std::vector<Branch>> a = BranchesOf(path, after, env, arches);
  if (!b || !a || b->size() != a->size()) {
    spdlog::info("{}: the edit changes the file's #if structure; every arch counts as changed", path);
    return Everything(arches);
  }
  int chain = -1;
  if (edit_begin != std::string_view::npos) {
    const int edited = BranchOfCondition(*b, edit_begin, edit_end);
    if (edited >= 0) chain = (*b)[edited].chain;
  }
  std::vector<VerdictChange> out;
  for (size_t arch = 0; arch < arches.size(); ++arch) {
    for (size_t i = 0; i < b->size(); ++i) {
      if (chain >= 0 && !InChainOrBelow(*b, static_cast<int>(i), chain)) continue;
      const Tri before_v = (*b)[i].verdict[arch], after_v = (*a)[i].verdict[arch];
      if (before_v != after_v) {
        out.push_back({arches[arch].name(), before_v, after_v});
        break;
      }
    }
  }
  return out;
}

std::vector<std::string> ArchNames(const std::vector<VerdictChange>& changes) {
  std::vector<std::string> out;
  for (const VerdictChange& c : changes) out.push_back(c.arch);
  return out;
}

}  // namespace archpatch::hazard
