#include "cli/hazard_cli.h"

#include <algorithm>

#include <fmt/format.h>

#include "apply/verify.h"
#include "cli/store_support.h"
#include "report/json_text.h"

namespace archpatch::cli {

hazard::ProofOptions ProofOptionsFrom(const po::variables_map& vars) {
  hazard::ProofOptions o;
  if (vars.count("proof-engine")) {
    Result<hazard::ProofEngine> e = hazard::ParseProofEngine(vars["proof-engine"].as<std::string>());
    if (!e) throw UsageError(e.error().message);
    o.engine = *e;
  }
  return o;
}

void AddApplyHazardOptions(po::options_description& desc) {
  desc.add_options()("verify",
                     "prove each CUDA edit with the compiler's preprocessor before writing (docs/hazards.md)")(
      "proof-engine", po::value<std::string>(), "auto (nvcc when found, else libclang), nvcc or libclang");
}

bool WantsProof(const std::vector<std::string>& args) {
  return std::find(args.begin(), args.end(), "--proof") != args.end();
}

int RunVerifyProof(const Context&, const std::vector<std::string>& args) {
  po::options_description desc("options");
  desc.add_options()("proof", "prove the CUDA edits of rules with the compiler's preprocessor")(
      "rule", po::value<std::vector<std::string>>()->composing(),
      "only this rule (repeatable); default every applied rule")(
      "proof-engine", po::value<std::string>(), "auto (nvcc when found, else libclang), nvcc or libclang")(
      "json", "print the proof as JSON (docs/hazards.md)");
  AddEnvOptions(desc);
  ParsedOptions parsed = ParseOptions("verify", desc, args);
  if (parsed.help) {
    PrintCommandHelp("verify",
                     "--proof [--rule ID]... [--python EXE | --site-packages DIR | --root DIR] "
                     "[--proof-engine auto|nvcc|libclang] [--json]",
                     desc);
    return kExitOk;
  }
  const po::variables_map& vars = parsed.vars;
  const hazard::ProofOptions options = ProofOptionsFrom(vars);
  const env::Environment environment = DiscoverEnvironment(vars);
  std::vector<std::string> wanted;
  if (vars.count("rule")) wanted = vars["rule"].as<std::vector<std::string>>();
  store::RealDisk disk;
  apply::RealLocker locker;
  const apply::PlanProof proof = apply::ProveRules(disk, locker, environment, wanted, options);
  if (vars.count("json")) {
    fmt::print("{}\n", report::DumpText(apply::ToJson(proof), 2));
  } else {
    for (const std::string& line : apply::DescribeProof(proof)) fmt::print("{}\n", line);
  }
  if (proof.files.empty()) {
    if (!vars.count("json")) fmt::print("nothing to prove: no CUDA edit among the rules\n");
    return kExitFindings;
  }
  return proof.ok() ? kExitOk : kExitRefused;
}

}  // namespace archpatch::cli
