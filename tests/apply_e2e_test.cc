// apply, status and revert end to end on a copy of tests/fixtures/store/site-packages.
#include <sys/stat.h>

#include "store_e2e.h"

namespace archpatch::e2e {
namespace {

using nlohmann::json;

const std::string kPyBefore = "    return dict(name=MODULE, supported_major_versions=[9, 10])\n";
const std::string kPyAfter = "    return dict(name=MODULE, supported_major_versions=[9, 10, 12])\n";

TEST(ApplyE2e, DryRunPrintsTheDiffAndChangesNothing) {
  StoreEnv env;
  auto before = Snapshot(env.site());
  RunResult r = env.Run({"apply", "--rule", Rule("minipkg-widen"), "--dry-run"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("--- a/minipkg/jit.py\n+++ b/minipkg/jit.py\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("-" + kPyBefore + "+" + kPyAfter), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("-#if (__CUDA_ARCH__ >= 900) && (__CUDA_ARCH__ < 1200)\n+#if (__CUDA_ARCH__ >= 900)\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("rule 'minipkg-widen' would change 2 file(s) (dry run: nothing written)"), std::string::npos);
  EXPECT_EQ(Snapshot(env.site()), before);
  EXPECT_FALSE(std::filesystem::exists(env.site() / ".archpatch"));
}

TEST(ApplyE2e, DryRunJsonIsTheCompletePlan) {
  StoreEnv env;
  RunResult r = env.Run({"apply", "--rule", Rule("minipkg-widen"), "--dry-run", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json plan = json::parse(r.out);
  ASSERT_EQ(plan["rules"].size(), 1u);
  const json& files = plan["rules"][0]["files"];
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[1]["path"], "minipkg/jit.py");
  EXPECT_EQ(files[1]["sha256_before"].get<std::string>().size(), 64u);
  EXPECT_EQ(files[1]["edits"][0]["before"], "supported_major_versions=[9, 10]");
  EXPECT_EQ(files[1]["edits"][0]["after"], "supported_major_versions=[9, 10, 12]");
}

TEST(ApplyE2e, ApplyStatusApplyAgainRevertRestoresEveryByte) {
  StoreEnv env;
  auto original = Snapshot(env.site());
  RunResult r = env.Run({"apply", "--rule", Rule("minipkg-widen")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("applied rule 'minipkg-widen' to minipkg 1.0.0: 2 file(s) changed"), std::string::npos) << r.out;
  std::string py = ReadFile(env.file("minipkg/jit.py"));
  EXPECT_NE(py.find(kPyAfter), std::string::npos);
  EXPECT_NE(py.find("def gen_other():\n    return dict(name=\"mnnvl\", supported_major_versions=[9, 10])"),
            std::string::npos);  // outside the scope: untouched
  std::string cuh = ReadFile(env.file("minipkg/include/allreduce.cuh"));
  EXPECT_TRUE(cuh.ends_with("#endif\n}")) << "the missing final newline must stay missing";

  json m = env.Manifest();
  ASSERT_EQ(m["entries"].size(), 1u);
  EXPECT_EQ(m["entries"][0]["rule"], "minipkg-widen");
  EXPECT_EQ(m["entries"][0]["version"], "1.0.0");
  EXPECT_EQ(m["entries"][0]["files"][1]["edits"][0]["line"], 7);

  RunResult status = env.Run({"status"});
  EXPECT_EQ(status.exit_code, 0) << status.err;
  EXPECT_NE(status.out.find("  patched   minipkg/jit.py\n"), std::string::npos) << status.out;

  RunResult again = env.Run({"apply", "--rule", Rule("minipkg-widen"), "--json"});
  EXPECT_EQ(again.exit_code, 1) << again.err;
  json j = json::parse(again.out);
  EXPECT_EQ(j["changed"], false);
  EXPECT_EQ(j["rules"][0]["already_applied"], true);
  EXPECT_NE(j["msg"].get<std::string>().find("is already applied"), std::string::npos);

  RunResult revert = env.Run({"revert", "--all"});
  EXPECT_EQ(revert.exit_code, 0) << revert.err;
  EXPECT_NE(revert.out.find("reverted rule 'minipkg-widen': 2 file(s) restored"), std::string::npos) << revert.out;
  EXPECT_EQ(Snapshot(env.site()), original);
  EXPECT_EQ(env.Manifest()["entries"].size(), 0u);

  RunResult nothing = env.Run({"revert", "--all"});
  EXPECT_EQ(nothing.exit_code, 1);
  EXPECT_NE(nothing.out.find("nothing to revert"), std::string::npos);
}

TEST(ApplyE2e, JsonFollowsAnsiblesModuleContract) {
  StoreEnv env;
  RunResult r = env.Run({"apply", "--rule", Rule("minipkg-widen"), "--json", "--diff"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["changed"], true);
  EXPECT_EQ(j["failed"], false);
  EXPECT_TRUE(j["msg"].is_string());
  EXPECT_NE(j["diff"]["prepared"].get<std::string>().find("+" + kPyAfter), std::string::npos);
  EXPECT_EQ(j["rules"][0]["id"], "minipkg-widen");
  EXPECT_EQ(j["rules"][0]["changed"], true);
  EXPECT_EQ(j["rules"][0]["files"].size(), 2u);
}

TEST(ApplyE2e, CheckModeReportsWouldChangeAndWritesNothing) {
  StoreEnv env;
  auto before = Snapshot(env.site());
  RunResult r = env.Run({"apply", "--rule", Rule("minipkg-widen"), "--check", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["changed"], true);
  EXPECT_EQ(j["check_mode"], true);
  EXPECT_EQ(Snapshot(env.site()), before);
}

TEST(ApplyE2e, ReviewedPlanAppliesExactlyAndIsRefusedWhenAFileDiffers) {
  StoreEnv env;
  RunResult plan = env.Run({"apply", "--rule", Rule("minipkg-widen"), "--dry-run", "--json"});
  ASSERT_EQ(plan.exit_code, 0);
  std::filesystem::path plan_file = env.dir() / "plan.json";
  WriteFile(plan_file, plan.out);

  // A host whose file differs from the reviewed one refuses the whole plan.
  WriteFile(env.file("minipkg/__init__.py"), "# touched\n");
  StoreEnv other;
  std::string other_plan = plan.out;
  for (size_t at; (at = other_plan.find(env.site().string())) != std::string::npos;) {
    other_plan.replace(at, env.site().string().size(), other.site().string());
  }
  WriteFile(other.file("minipkg/jit.py"), ReadFile(other.file("minipkg/jit.py")) + "# local change\n");
  auto before = Snapshot(other.site());
  WriteFile(other.dir() / "plan.json", other_plan);
  RunResult refused = RunArchpatch({"apply", "--plan", (other.dir() / "plan.json").string()}, other.Env());
  EXPECT_EQ(refused.exit_code, 3);
  EXPECT_NE(refused.err.find("minipkg/jit.py: file changed since the plan was made"), std::string::npos) << refused.err;
  EXPECT_EQ(Snapshot(other.site()), before);

  RunResult applied = RunArchpatch({"apply", "--plan", plan_file.string()}, env.Env());
  EXPECT_EQ(applied.exit_code, 0) << applied.err;
  EXPECT_NE(ReadFile(env.file("minipkg/jit.py")).find(kPyAfter), std::string::npos);
}

TEST(ApplyE2e, APlanThatLeavesSitePackagesIsRefused) {
  StoreEnv env;
  RunResult plan = env.Run({"apply", "--rule", Rule("minipkg-widen"), "--dry-run", "--json"});
  ASSERT_EQ(plan.exit_code, 0);
  json j = json::parse(plan.out);
  j["rules"][0]["files"][0]["path"] = "../outside.cuh";
  WriteFile(env.dir() / "outside.cuh", ReadFile(env.file("minipkg/include/allreduce.cuh")));
  WriteFile(env.dir() / "plan.json", j.dump());
  auto before = Snapshot(env.dir());
  RunResult r = RunArchpatch({"apply", "--plan", (env.dir() / "plan.json").string()}, env.Env());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("../outside.cuh"), std::string::npos) << r.err;
  EXPECT_EQ(Snapshot(env.dir()), before);
}

TEST(ApplyE2e, HardLinkedFileIsReplacedAndTheOtherLinkKeepsItsBytes) {
  StoreEnv env;
  std::filesystem::path shared = env.dir() / "uv-cache-jit.py";
  std::filesystem::copy_file(env.file("minipkg/jit.py"), shared);
  std::filesystem::remove(env.file("minipkg/jit.py"));
  std::filesystem::create_hard_link(shared, env.file("minipkg/jit.py"));
  std::string shared_before = ReadFile(shared);
  RunResult r = env.Run({"apply", "--rule", Rule("minipkg-widen")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(ReadFile(shared), shared_before);
  EXPECT_NE(ReadFile(env.file("minipkg/jit.py")).find(kPyAfter), std::string::npos);
  EXPECT_NE(r.out.find("note: 'minipkg/jit.py' had 2 hard links; it was replaced by a new file, the other links "
                       "keep the original bytes"),
            std::string::npos)
      << r.out;
}

TEST(ApplyE2e, InstallerThatSharesFilesIsMentioned) {
  StoreEnv env;
  WriteFile(env.file("minipkg-1.0.0.dist-info/INSTALLER"), "uv\n");
  RunResult r = env.Run({"apply", "--rule", Rule("minipkg-widen")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("'minipkg' was installed by 'uv'"), std::string::npos) << r.out;
}

TEST(RevertE2e, AFileChangedSinceApplyIsNotOverwrittenWithoutForce) {
  StoreEnv env;
  auto original = Snapshot(env.site());
  ASSERT_EQ(env.Run({"apply", "--rule", Rule("minipkg-widen")}).exit_code, 0);
  WriteFile(env.file("minipkg/jit.py"), "# hand edited\n");
  RunResult r = env.Run({"revert", "--rule", "minipkg-widen"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.out.find("refused to revert rule 'minipkg-widen': 'minipkg/jit.py' changed since archpatch patched "
                       "it; not overwritten (use --force"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(ReadFile(env.file("minipkg/jit.py")), "# hand edited\n");
  RunResult status = env.Run({"status", "--json"});
  EXPECT_EQ(status.exit_code, 1);
  EXPECT_EQ(json::parse(status.out)["entries"][0]["files"][1]["state"], "modified");

  RunResult forced = env.Run({"revert", "--rule", "minipkg-widen", "--force"});
  EXPECT_EQ(forced.exit_code, 0) << forced.err;
  EXPECT_EQ(Snapshot(env.site()), original);
}

TEST(RevertE2e, AfterAnUpgradeTheStaleEntryIsRetired) {
  StoreEnv env;
  ASSERT_EQ(env.Run({"apply", "--rule", Rule("minipkg-widen")}).exit_code, 0);
  // "pip install -U minipkg": new files and a RECORD that matches them.
  std::string jit = "def gen_module():\n    return dict(supported_major_versions=[9, 10, 12])\n";
  WriteFile(env.file("minipkg/jit.py"), jit);
  WriteFile(env.file("minipkg/include/allreduce.cuh"), "#if __CUDA_ARCH__ >= 900\n#endif\n");
  std::string cmd = "cd " + ShellQuote(env.site().string()) +
                    " && python3 -c \"import hashlib,base64,sys;"
                    "[print(p+',sha256='+base64.urlsafe_b64encode(hashlib.sha256(open(p,'rb').read()).digest())"
                    ".rstrip(b'=').decode()+',') for p in sys.argv[1:]]\" minipkg/jit.py minipkg/include/allreduce.cuh"
                    " > minipkg-1.0.0.dist-info/RECORD";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  RunResult r = env.Run({"revert", "--package", "minipkg"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("retired rule 'minipkg-widen'"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("match(es) the installed package's RECORD"), std::string::npos) << r.out;
  EXPECT_EQ(ReadFile(env.file("minipkg/jit.py")), jit);
  EXPECT_EQ(env.Manifest()["entries"].size(), 0u);
}

TEST(RevertE2e, NeedsASelector) {
  StoreEnv env;
  RunResult r = env.Run({"revert"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "archpatch: error: nothing to revert: give --rule ID, --package NAME or --all\n");
}

}  // namespace
}  // namespace archpatch::e2e
