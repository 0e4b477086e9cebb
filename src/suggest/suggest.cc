#include "suggest/suggest.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "apply/context.h"
#include "arch/arch.h"
#include "hazard/audit_hook.h"
#include "plan/known_unsafe.h"
#include "plan/rule_coverage.h"
#include "scan/audit.h"
#include "scan/groups.h"
#include "scan/prebuilt_link.h"
#include "suggest/assemble.h"

namespace archpatch::suggest {
namespace {

struct Audited {
  std::vector<gate::Finding> findings;
  std::vector<gate::Group> groups;
};

// The audit `archpatch audit --arch T --site-packages ...` runs, with its group marks (shipped
// rules covering a root, the known-unsafe list), so group ids are the ones it prints.
Result<Audited> AuditEnvironment(const env::Environment& env, const SuggestOptions& o) {
  scan::AuditOptions options;
  options.target = o.target;
  for (const auto& dir : env.search_paths) options.paths.push_back(dir.string());
  options.jobs = o.jobs;
  options.walk.skip_setup_py = true;
  options.after_cuda_file = hazard::HazardPass(options);
  Result<scan::AuditReport> report = scan::Audit(options);
  hazard::RequireFeatures();
  if (!report) return report.error();
  Audited out{std::move(report->findings), {}};
  out.groups = scan::BuildGroups(out.findings, options.paths);
  scan::LinkAndMarkPrebuilt(out.findings, out.groups, options.paths, o.target, scan::WorkerCount(o.jobs));
  plan::MarkCoveredByShippedRules(out.groups, out.findings, o.target, scan::WorkerCount(o.jobs));
  const Result<std::vector<plan::KnownUnsafe>>& unsafe = plan::ShippedKnownUnsafe();
  if (!unsafe) return Error{fmt::format("{} (suggest needs the known-unsafe list)", unsafe.error().str()), {}};
  plan::MarkKnownUnsafe(out.groups, out.findings, *unsafe, o.target);
  return out;
}

// The candidates named on the command line, or every one that keeps the target out.
Result<std::vector<Candidate>> Select(std::vector<Candidate> all, const std::vector<std::string>& ids) {
  if (ids.empty()) {
    std::erase_if(all, [](const Candidate& c) { return !c.keeps_target_out; });
    return all;
  }
  std::vector<Candidate> out;
  for (const std::string& id : ids) {
    auto it = std::find_if(all.begin(), all.end(), [&](const Candidate& c) { return c.group == id; });
    if (it == all.end()) {
      return Error{fmt::format("no root cause '{}' (the audit of this environment numbers G1 to G{})", id, all.size()),
                   {}};
    }
    if (std::none_of(out.begin(), out.end(), [&](const Candidate& c) { return c.group == id; })) out.push_back(*it);
  }
  return out;
}

std::string Reasons(const Candidate& c) {
  return c.widen_reasons.empty() ? c.widen : fmt::format("{}", fmt::join(c.widen_reasons, "; "));
}

// The newest arch of an older family than the target's that `c`'s #if lets in, when that is
// older than the newest such arch of the table: the path is written for particular older chips
// (`__CUDA_ARCH__ < 800`, an sm_90-only or SM100-family-only block), and widening it switches
// that path on where a newer one was meant. "" when the gate lets in the arches right below the
// target's family (`>= 900 && < 1200` for sm_120, as FlashInfer's own fixes widen).
std::string OlderChipsOnly(const Candidate& c, const arch::Arch& target) {
  if (c.kind != "cuda-gate") return "";  // a Python list names the chips a module is built for
  int newest_below = 0;
  for (const arch::Arch& a : arch::AllArches()) {
    if (a.major < target.major) newest_below = std::max(newest_below, a.number());
  }
  std::optional<arch::Arch> newest_admitted;
  for (const std::string& name : c.admitted) {
    Result<arch::Arch> a = arch::ParseArch(name);
    if (!a || a->major >= target.major) continue;
    if (!newest_admitted || a->number() > newest_admitted->number()) newest_admitted = *a;
  }
  if (!newest_admitted || newest_admitted->number() >= newest_below) return "";
  return newest_admitted->plain().name();
}

// Why a root cause gets no edit before any file is read; "" when it may get one.
std::string RefusalReason(const Candidate& c, const SuggestOptions& o) {
  const std::string target = o.target.name();
  if (!c.known_unsafe.empty()) return c.known_unsafe;
  if (c.klass == "hardware-exclusive") {
    std::string reason = fmt::format(
        "hardware-exclusive: {} lacks {} ({})", target,
        c.lacking.empty() ? "what the code uses" : fmt::format("{}", fmt::join(c.lacking, ", ")), Reasons(c));
    if (!c.lacking_variant.empty()) {
      reason += fmt::format("; {} has it: build for {}, not {}", c.lacking_variant, c.lacking_variant, target);
    }
    return reason;
  }
  if (!c.keeps_target_out) {
    return fmt::format("keeps nothing out of {} ({}: {})", target, c.klass, c.class_reason);
  }
  if (c.widen == "widen-unsafe") return fmt::format("widening it is unsafe: {}", Reasons(c));
  if (!c.covered_by.empty()) {
    return fmt::format("already covered by the shipped rule {} (archpatch apply --rule {})",
                       fmt::join(c.covered_by, ", "), c.covered_by.front());
  }
  // A gate written for arch-specific code (`defined(__CUDA_ARCH_SPECIFIC__)`, CUTLASS's
  // __CUDA_ARCH_FEAT_SM120_ALL switches): opened to the plain target, that code meets a compiler
  // without its instructions; the target's own build for the variant takes the path unedited.
  if (!c.admitted_variant.empty()) {
    return fmt::format(
        "built for {} the target takes this path: build for {} rather than widen a gate written for "
        "arch-specific code (write the rule by hand if plain {} must take it)",
        c.admitted_variant, c.admitted_variant, target);
  }
  if (c.klass == "fast-path" && !o.fast_paths) {
    return fmt::format(
        "a fast path ({}): widening changes speed, not whether it runs, and upstream may have "
        "kept it out on purpose (--fast-paths drafts it anyway)",
        c.class_reason);
  }
  if (const std::string newest = OlderChipsOnly(c, o.target); !newest.empty()) {
    return fmt::format(
        "only older chips take this path (the newest is {}): widening it switches their code on for {} "
        "(write the rule by hand if that is what you want)",
        newest, target);
  }
  if (c.widen != "widen-safe" && !o.allow_unknown) {
    return fmt::format("widening it is not known to be safe: {} (--allow-unknown drafts it anyway)", Reasons(c));
  }
  return "";
}

}  // namespace

Result<Suggestions> Suggest(const env::Environment& env, const SuggestOptions& options) {
  Result<Audited> audited = AuditEnvironment(env, options);
  if (!audited) return audited.error();
  Result<std::vector<Candidate>> selected = Select(ToCandidates(audited->groups, audited->findings), options.groups);
  if (!selected) return selected.error();
  Suggestions out;
  out.root_causes = selected->size();
  std::map<std::string, std::vector<Accepted>> by_distribution;
  for (const Candidate& c : *selected) {
    const Owned owner = OwnerOf(env, c.file);
    std::string reason = RefusalReason(c, options);
    if (reason.empty() && !owner.distribution) {
      reason = "no installed distribution owns the file (no dist-info's RECORD or top_level.txt names it)";
    }
    if (!reason.empty()) {
      out.refused.push_back({c.group, WhereOf(c, owner), c.text, reason});
      continue;
    }
    by_distribution[owner.distribution->normalized_name].push_back({c, owner});
  }
  const std::vector<store::CacheKind> kinds =
      by_distribution.empty() ? std::vector<store::CacheKind>{} : apply::LoadCacheKindsOrWarn();
  for (const auto& [name, accepted] : by_distribution) {
    DraftOutcome draft = DraftRule(env, accepted, options.target, kinds);
    if (draft.rule) out.rules.push_back(std::move(*draft.rule));
    out.refused.insert(out.refused.end(), draft.refused.begin(), draft.refused.end());
  }
  auto group_number = [](const std::string& id) { return std::stoul(id.substr(1)); };
  std::stable_sort(out.refused.begin(), out.refused.end(),
                   [&](const Refusal& a, const Refusal& b) { return group_number(a.group) < group_number(b.group); });
  return out;
}

}  // namespace archpatch::suggest
