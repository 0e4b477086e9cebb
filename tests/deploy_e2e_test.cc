// End-to-end tests of the deployment story (docs/deploy.md): the shipped FlashInfer/SGLang rules
// and the example's rule applied with the real binary to copies of their fixture trees, and
// archpatch answering as an Ansible binary module.
#include <filesystem>
#include <map>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "e2e.h"

namespace archpatch::e2e {
namespace {

namespace fs = std::filesystem;

const fs::path kSource = ARCHPATCH_SOURCE_DIR;

// Every regular file under `root` (relative path -> bytes), archpatch's own state folder and
// Python caches left out.
std::map<std::string, std::string> TreeBytes(const fs::path& root) {
  std::map<std::string, std::string> files;
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
    std::string name = it->path().filename().string();
    if (it->is_directory() && (name == ".archpatch" || name == "__pycache__")) {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file()) files[fs::relative(it->path(), root).generic_string()] = ReadFile(it->path());
  }
  return files;
}

// Copies a fixture's before/ tree into a temp dir and returns the site-packages path.
fs::path CopyTree(const TempDir& dir, const fs::path& from) {
  fs::path site = dir.path() / "site-packages";
  fs::copy(from, site, fs::copy_options::recursive);
  return site;
}

// Home for the cache clearing, so no test touches the real ~/.cache.
std::string Env(const TempDir& dir) {
  return "HOME=" + ShellQuote(dir.path().string()) + " MINIFI_WORKSPACE_BASE=" + ShellQuote(dir.path().string()) +
         " FLASHINFER_WORKSPACE_BASE=" + ShellQuote(dir.path().string()) + " ";
}

void ExpectApplyGivesAfterAndRevertGivesBefore(const std::string& rule_id) {
  fs::path fixture = kSource / "rules/tests" / rule_id;
  TempDir dir;
  fs::path site = CopyTree(dir, fixture / "before");
  fs::path rule = kSource / "rules" / (rule_id + ".yaml");

  RunResult apply = RunArchpatch({"apply", "--rule", rule.string(), "--site-packages", site.string()}, Env(dir));
  ASSERT_EQ(apply.exit_code, 0) << apply.err;
  EXPECT_EQ(TreeBytes(site), TreeBytes(fixture / "after"));

  RunResult again = RunArchpatch({"apply", "--rule", rule.string(), "--site-packages", site.string()}, Env(dir));
  EXPECT_EQ(again.exit_code, 1) << "a second apply has nothing to do: " << again.out << again.err;

  RunResult revert = RunArchpatch({"revert", "--rule", rule_id, "--site-packages", site.string()}, Env(dir));
  ASSERT_EQ(revert.exit_code, 0) << revert.err;
  EXPECT_EQ(TreeBytes(site), TreeBytes(fixture / "before"));
}

TEST(DeployRules, FlashInferTrtllmAllreduceChangesBothGatesAndRevertsExactly) {
  ExpectApplyGivesAfterAndRevertGivesBefore("flashinfer-trtllm-allreduce-sm12x");
}

TEST(DeployRules, FlashInferLegacyReleasesGetRealKernelBodies) {
  ExpectApplyGivesAfterAndRevertGivesBefore("flashinfer-trtllm-allreduce-sm12x-legacy");
}

TEST(DeployRules, SglangFusionGatesAdmitMajor12) {
  ExpectApplyGivesAfterAndRevertGivesBefore("sglang-flashinfer-allreduce-fusion-sm12x");
}

TEST(DeployRules, FlashInferRuleOnAFixedReleaseIsSatisfied) {
  // The expected tree of the pre-fix fixture is what 0.6.17 ships: nothing left to do there.
  TempDir dir;
  fs::path site = CopyTree(dir, kSource / "rules/tests/flashinfer-trtllm-allreduce-sm12x/after");
  auto before = TreeBytes(site);
  RunResult apply = RunArchpatch(
      {"apply", "--rule", "flashinfer-trtllm-allreduce-sm12x", "--site-packages", site.string()}, Env(dir));
  EXPECT_EQ(apply.exit_code, 1) << apply.out << apply.err;
  EXPECT_EQ(TreeBytes(site), before);
}

TEST(DeployExample, MinifiRuleOpensBothGatesAndLeavesTheMultinodeGate) {
  TempDir dir;
  fs::path site = CopyTree(dir, kSource / "examples/minipkg/site-packages");
  fs::path rule = kSource / "examples/minipkg/rules/minifi-allreduce.yaml";
  RunResult apply = RunArchpatch({"apply", "--rule", rule.string(), "--site-packages", site.string()}, Env(dir));
  ASSERT_EQ(apply.exit_code, 0) << apply.err;
  std::string comm = ReadFile(site / "minifi/jit/comm.py");
  std::string header = ReadFile(site / "minifi/data/include/minifi/comm/allreduce.cuh");
  EXPECT_NE(comm.find("def gen_multinode_module() -> JitSpec:\n"
                      "    # Multi-node NVLink is only wired up on datacenter Blackwell; this gate stays as it is.\n"
                      "    nvcc_flags = current_compilation_context.get_nvcc_flags_list(\n"
                      "        supported_major_versions=[10]\n"),
            std::string::npos)
      << comm;
  EXPECT_EQ(comm.find("supported_major_versions=[10]\n    )\n    return gen_jit_spec(\n        \"minifi_allreduce\""),
            std::string::npos)
      << comm;
  EXPECT_EQ(header.find("__CUDA_ARCH__ < 1200"), std::string::npos) << header;
  EXPECT_EQ(header.find("__CUDA_ARCH__ >= 1000"), std::string::npos) << header;
}

// Ansible runs a binary module as `MODULE ARGS_FILE`; the answer is one JSON object.
// Ansible always adds its own keys (_ansible_module_name, _ansible_version, ...) to the arguments.
nlohmann::json RunAsAnsibleModule(const TempDir& dir, nlohmann::json args) {
  fs::path args_file = dir.path() / "args";
  args["_ansible_module_name"] = "archpatch";
  args["_ansible_version"] = "2.14.18";
  WriteFile(args_file, args.dump());
  RunResult run = RunArchpatch({args_file.string()}, Env(dir));
  nlohmann::json answer = nlohmann::json::parse(run.out, nullptr, false);
  EXPECT_FALSE(answer.is_discarded()) << "stdout: " << run.out << "\nstderr: " << run.err;
  EXPECT_EQ(run.exit_code, answer.value("failed", true) ? 1 : 0);
  return answer;
}

TEST(DeployAnsibleModule, ReportsChangedOnlyWhenSomethingChanged) {
  TempDir dir;
  fs::path site = CopyTree(dir, kSource / "examples/minipkg/site-packages");
  auto original = TreeBytes(site);
  nlohmann::json args = {{"rules", {(kSource / "examples/minipkg/rules/minifi-allreduce.yaml").string()}},
                         {"site_packages", site.string()},
                         {"_ansible_check_mode", true},
                         {"_ansible_diff", true}};

  nlohmann::json check = RunAsAnsibleModule(dir, args);
  EXPECT_EQ(check["changed"], true) << check.dump(2);
  EXPECT_NE(check["diff"]["prepared"].get<std::string>().find("+        supported_major_versions="), std::string::npos)
      << check.dump(2);
  EXPECT_EQ(TreeBytes(site), original) << "check mode writes nothing";

  args["_ansible_check_mode"] = false;
  EXPECT_EQ(RunAsAnsibleModule(dir, args)["changed"], true);
  EXPECT_NE(TreeBytes(site), original);
  nlohmann::json second = RunAsAnsibleModule(dir, args);
  EXPECT_EQ(second["changed"], false) << second.dump(2);
  EXPECT_EQ(second["failed"], false);

  // state=absent without rules reverts everything, and answers "nothing to do" the second time.
  nlohmann::json revert = {{"site_packages", site.string()}, {"state", "absent"}};
  EXPECT_EQ(RunAsAnsibleModule(dir, revert)["changed"], true);
  EXPECT_EQ(TreeBytes(site), original);
  nlohmann::json again = RunAsAnsibleModule(dir, revert);
  EXPECT_EQ(again["changed"], false) << again.dump(2);
  EXPECT_EQ(again["failed"], false) << again.dump(2);
}

TEST(DeployAnsibleModule, BadArgumentsFailWithAMessageAndChangeNothing) {
  TempDir dir;
  fs::path site = CopyTree(dir, kSource / "examples/minipkg/site-packages");
  auto original = TreeBytes(site);
  nlohmann::json answer = RunAsAnsibleModule(dir, {{"rules", {"minifi-allreduce"}}, {"site_pakages", site.string()}});
  EXPECT_EQ(answer["failed"], true);
  EXPECT_EQ(answer["changed"], false);
  EXPECT_NE(answer["msg"].get<std::string>().find("unsupported parameter 'site_pakages'"), std::string::npos)
      << answer.dump(2);
  answer = RunAsAnsibleModule(dir, {{"state", "latest"}, {"site_packages", site.string()}});
  EXPECT_EQ(answer["failed"], true);
  EXPECT_NE(answer["msg"].get<std::string>().find("state must be 'present' or 'absent'"), std::string::npos);
  EXPECT_EQ(TreeBytes(site), original);
}

}  // namespace
}  // namespace archpatch::e2e
