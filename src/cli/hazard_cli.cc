#include "cli/hazard_cli.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/store_support.h"
#include "env/digest.h"
#include "hazard/assess.h"
#include "hazard/proof.h"
#include "plan/planner.h"
#include "rules/loader.h"
#include "scan/scan.h"
#include "store/state_dir.h"

namespace archpatch::cli {
namespace {

hazard::ProofOptions ProofOptionsFrom(const po::variables_map& vars) {
  hazard::ProofOptions o;
  if (vars.count("proof-engine")) {
    Result<hazard::ProofEngine> e = hazard::ParseProofEngine(vars["proof-engine"].as<std::string>());
    if (!e) throw UsageError(e.error().message);
    o.engine = *e;
  }
  return o;
}

// The bytes an edit record replaced, located in the original from its line.
std::vector<ByteSpan> EditedSpans(const std::string& original, const std::vector<store::EditRecord>& edits) {
  std::vector<ByteSpan> spans;
  for (const store::EditRecord& e : edits) {
    size_t line_start = 0;
    for (int l = 1; l < e.line && line_start != std::string::npos; ++l) {
      line_start = original.find('\n', line_start);
      if (line_start != std::string::npos) ++line_start;
    }
    if (line_start == std::string::npos) continue;
    const size_t at = original.find(e.before, line_start);
    if (at != std::string::npos) spans.push_back({at, at + e.before.size()});
  }
  return spans;
}

std::vector<arch::Arch> Targets(const std::vector<std::string>& names) {
  std::vector<arch::Arch> out;
  for (const std::string& n : names) {
    if (Result<arch::Arch> a = arch::ParseArch(n)) out.push_back(*a);
  }
  return out;
}

// Applied rules: each CUDA file's backup (the original) against its bytes now.
void ProveApplied(store::StateDir& state, const store::Entry& entry, const hazard::ProofOptions& o,
                  hazard::PlanProof& out) {
  for (const store::FileRecord& f : entry.files) {
    if (scan::KindOf(f.path) != scan::FileKind::kCuda) {
      out.skipped.push_back(fmt::format("{}: not a CUDA/C++ file; the compiler proof covers CUDA edits", f.path));
      continue;
    }
    Result<std::string> before = state.ReadBackup(f.backup, f.original_sha256);
    Result<std::string> after = env::ReadFileBytes(state.FilePath(f.path));
    if (!before || !after) throw Fatal(fmt::format("{}: cannot read the original or the patched file", f.path));
    Result<hazard::FileProof> proof =
        hazard::ProveEdit(f.path, *before, *after, EditedSpans(*before, f.edits), Targets(entry.targets), o);
    if (!proof) throw Fatal(proof.error().str());
    out.files.push_back(std::move(*proof));
  }
}

void Print(const hazard::PlanProof& proof, bool json) {
  if (json) {
    fmt::print("{}\n", hazard::ToJson(proof).dump(2));
    return;
  }
  for (const std::string& line : hazard::DescribeProof(proof)) fmt::print("{}\n", line);
}

}  // namespace

void AddApplyHazardOptions(po::options_description& desc) {
  desc.add_options()("verify", "prove each CUDA edit with the compiler's preprocessor before writing (docs/hazards.md)")(
      "proof-engine", po::value<std::string>(), "auto (nvcc when found, else libclang), nvcc or libclang");
}

PlanHazards CheckPlanHazards(const plan::EditPlan& p, const po::variables_map& vars, bool dry_run) {
  PlanHazards out;
  const hazard::PlanAssessment assessment = hazard::AssessPlan(p);
  out.lines = hazard::DescribeAssessment(assessment);
  out.json["hazards"] = hazard::ToJson(assessment);
  const bool allowed = vars.count("allow-hazard") || vars.count("force");
  if (!dry_run && assessment.Refuses() && !allowed) {
    std::string why;
    for (const Finding& f : assessment.findings) {
      if (f.severity != Severity::kError) continue;
      const std::string through = f.details.value("reached_through", "");
      why += f.kind == "empty-kernel"
                 ? fmt::format("\n  {}:{}:{}: kernel '{}' (built by {}): {}", f.file, f.line, f.column, f.text,
                               through.empty() ? "this rule" : through, f.summary)
                 : fmt::format("\n  {}:{}:{}: {}", f.file, f.line, f.column, f.summary);
    }
    throw Fatal(fmt::format("refusing to apply: the plan has hazards (nothing was changed; --allow-hazard applies "
                            "anyway):{}",
                            why));
  }
  if (vars.count("verify")) {
    Result<hazard::PlanProof> proof = hazard::ProvePlan(p, ProofOptionsFrom(vars));
    if (!proof) throw Fatal(proof.error().str() + "; nothing was changed");
    std::vector<std::string> lines = hazard::DescribeProof(*proof);
    out.lines.insert(out.lines.end(), lines.begin(), lines.end());
    out.json["proof"] = hazard::ToJson(*proof);
    if (!proof->ok() && !dry_run) {
      throw Fatal(fmt::format("the compiler proof failed, nothing was changed:\n  {}", fmt::join(lines, "\n  ")));
    }
  }
  return out;
}

bool WantsProof(const std::vector<std::string>& args) {
  return std::find(args.begin(), args.end(), "--proof") != args.end();
}

int RunVerifyProof(const Context&, const std::vector<std::string>& args) {
  po::options_description desc("options");
  desc.add_options()("proof", "prove the CUDA edits of rules with the compiler's preprocessor")(
      "rule", po::value<std::vector<std::string>>()->composing(), "only this rule (repeatable); default every applied rule")(
      "proof-engine", po::value<std::string>(), "auto (nvcc when found, else libclang), nvcc or libclang")(
      "json", "print the proof as JSON (docs/hazards.md)");
  AddEnvOptions(desc);
  ParsedOptions parsed = ParseOptions("verify", desc, args);
  if (parsed.help) {
    PrintCommandHelp("verify", "--proof [--rule ID]... [--python EXE | --site-packages DIR | --root DIR] "
                               "[--proof-engine auto|nvcc|libclang] [--json]", desc);
    return kExitOk;
  }
  const po::variables_map& vars = parsed.vars;
  const hazard::ProofOptions options = ProofOptionsFrom(vars);
  env::Environment environment = DiscoverEnvironment(vars);
  store::RealDisk disk;
  store::StateDir state(disk, environment.site_packages);
  Result<store::Manifest> manifest = state.LoadManifest();
  if (!manifest) throw Fatal(manifest.error().str());
  std::vector<std::string> wanted;
  if (vars.count("rule")) wanted = vars["rule"].as<std::vector<std::string>>();

  hazard::PlanProof proof;
  std::vector<rules::Rule> unapplied;
  for (const store::Entry& e : manifest->entries) {
    if (wanted.empty() || std::find(wanted.begin(), wanted.end(), e.rule) != wanted.end()) {
      ProveApplied(state, e, options, proof);
    }
  }
  for (const std::string& id : wanted) {
    if (manifest->Find(id)) continue;
    Result<rules::Rule> rule = rules::LoadRule(id);
    if (!rule) throw UsageError(rule.error().str());
    unapplied.push_back(std::move(*rule));
  }
  if (!unapplied.empty()) {
    Result<plan::EditPlan> planned = plan::PlanRules(unapplied, environment);
    if (!planned) throw Fatal(planned.error().str());
    Result<hazard::PlanProof> more = hazard::ProvePlan(*planned, options);
    if (!more) throw Fatal(more.error().str());
    proof.files.insert(proof.files.end(), more->files.begin(), more->files.end());
    proof.skipped.insert(proof.skipped.end(), more->skipped.begin(), more->skipped.end());
  }
  Print(proof, vars.count("json") > 0);
  if (proof.files.empty()) {
    if (!vars.count("json")) fmt::print("nothing to prove: no CUDA edit among the rules\n");
    return kExitFindings;
  }
  return proof.ok() ? kExitOk : kExitRefused;
}

}  // namespace archpatch::cli
