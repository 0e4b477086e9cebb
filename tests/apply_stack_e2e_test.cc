// Apply as deployment scripts meet it (issue 16, items 11-13 and 15): two rules on one file,
// together and one at a time; two processes applying them at once; what --json says after an
// I/O failure; a refused or nothing-to-do apply leaving no state behind; conflicting flags.
#include <set>

#include "store_e2e.h"

namespace archpatch::e2e {
namespace {

using nlohmann::json;

const std::string kModule = "    return dict(name=MODULE, supported_major_versions=[9, 10, 12])\n";
const std::string kOther = "    return dict(name=\"mnnvl\", supported_major_versions=[9, 10, 12])\n";

bool HasBothEdits(const StoreEnv& env) {
  const std::string py = ReadFile(env.file("minipkg/jit.py"));
  return py.find(kModule) != std::string::npos && py.find(kOther) != std::string::npos;
}

TEST(TwoRulesOneFileE2e, TogetherTheyApplyAndCheckModeAgrees) {
  StoreEnv env;
  auto original = Snapshot(env.site());
  RunResult check =
      env.Run({"apply", "--rule", Rule("minipkg-widen"), "--rule", Rule("minipkg-other"), "--check", "--json"});
  ASSERT_EQ(check.exit_code, 0) << check.err;
  EXPECT_EQ(Snapshot(env.site()), original);
  RunResult r = env.Run({"apply", "--rule", Rule("minipkg-widen"), "--rule", Rule("minipkg-other"), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  json real = json::parse(r.out), dry = json::parse(check.out);
  ASSERT_EQ(real["rules"].size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(real["rules"][i]["changed"], true);
    EXPECT_EQ(dry["rules"][i]["changed"], real["rules"][i]["changed"]);
    EXPECT_EQ(dry["rules"][i]["files"], real["rules"][i]["files"]) << "check mode reports what the run does";
  }
  EXPECT_TRUE(HasBothEdits(env));
  EXPECT_EQ(env.Run({"status"}).exit_code, 0);
  RunResult revert = env.Run({"revert", "--all"});
  EXPECT_EQ(revert.exit_code, 0) << revert.out << revert.err;
  EXPECT_EQ(Snapshot(env.site()), original);
}

TEST(TwoRulesOneFileE2e, OneAtATimeStatusStaysCleanAndASecondApplyIsNothingToDo) {
  StoreEnv env;
  ASSERT_EQ(env.Run({"apply", "--rule", Rule("minipkg-widen")}).exit_code, 0);
  RunResult other = env.Run({"apply", "--rule", Rule("minipkg-other")});
  ASSERT_EQ(other.exit_code, 0) << other.err;
  RunResult status = env.Run({"status", "--json"});
  EXPECT_EQ(status.exit_code, 0) << status.out;
  EXPECT_EQ(json::parse(status.out)["entries"][0]["as_left"], true) << status.out;
  // An idempotent deployment run: both rules again, nothing to do.
  RunResult again = env.Run({"apply", "--rule", Rule("minipkg-widen"), "--rule", Rule("minipkg-other"), "--json"});
  EXPECT_EQ(again.exit_code, 1) << again.out << again.err;
  json j = json::parse(again.out);
  EXPECT_EQ(j["changed"], false);
  EXPECT_EQ(j["rules"][0]["already_applied"], true);
  EXPECT_EQ(j["rules"][1]["already_applied"], true);
  RunResult check = env.Run({"apply", "--rule", Rule("minipkg-widen"), "--check"});
  EXPECT_EQ(check.exit_code, 1) << check.out << check.err;
  EXPECT_NE(check.out.find("rule 'minipkg-widen' is already applied"), std::string::npos) << check.out;
}

// Two real processes applying different rules to the same file at the same moment: the second
// waits for the first, plans on its result, and both succeed, round after round.
TEST(TwoRulesOneFileE2e, ConcurrentAppliesOfDifferentRulesOnOneFileBothSucceed) {
  const std::string bin = ShellQuote(ARCHPATCH_BINARY);
  for (int round = 0; round < 24; ++round) {
    StoreEnv env;
    const std::string site = ShellQuote(env.site().string());
    auto apply = [&](const std::string& rule) {
      return env.Env() + bin + " apply --rule " + ShellQuote(Rule(rule)) + " --site-packages " + site +
             " >/dev/null 2>&1";
    };
    const std::string cmd =
        apply("minipkg-widen") + " & " + apply("minipkg-other") + "; b=$?; wait $!; a=$?; echo $a $b; exit $((a + b))";
    ASSERT_EQ(std::system(("bash -c " + ShellQuote(cmd) + " >/dev/null").c_str()), 0) << "round " << round;
    EXPECT_TRUE(HasBothEdits(env)) << "round " << round;
    ASSERT_EQ(env.Manifest()["entries"].size(), 2u) << "round " << round;
    ASSERT_EQ(env.Run({"status"}).exit_code, 0) << "round " << round;
  }
}

// An I/O error at each write of an apply in turn (the process goes on, unlike a crash): the JSON
// answer says what is on disk, and the disk agrees, every time.
TEST(TruthfulReportE2e, AfterAnIOFailureJsonSaysWhatIsOnDisk) {
  bool saw_failure = false;
  for (int n = 0; n < 60; ++n) {
    StoreEnv env;
    auto original = Snapshot(env.site());
    RunResult r = env.Run({"apply", "--rule", Rule("minipkg-widen"), "--json"},
                          "ARCHPATCH_FAIL_AFTER_WRITES=" + std::to_string(n) + ":eio");
    json j = json::parse(r.out);
    const bool journal = std::filesystem::exists(env.site() / ".archpatch/journal.json");
    EXPECT_FALSE(journal) << n << ": every failure is rolled back at once, or the run committed";
    if (j["failed"] == true) {
      saw_failure = true;
      EXPECT_EQ(r.exit_code, 3) << n;
      EXPECT_EQ(j["changed"], false) << n;
      EXPECT_EQ(Snapshot(env.site()), original) << n << ": " << j["msg"];
      EXPECT_NE(j["msg"].get<std::string>().find("nothing"), std::string::npos) << j["msg"];
      continue;
    }
    // The first write that may fail without undoing the apply: the journal's removal.
    EXPECT_EQ(r.exit_code, 0) << n << r.err;
    EXPECT_EQ(j["changed"], true);
    EXPECT_NE(Snapshot(env.site()), original);
    EXPECT_EQ(env.Manifest()["entries"].size(), 1u);
    std::string notes = j["notes"].dump();
    EXPECT_NE(notes.find("after the rules were applied and recorded"), std::string::npos) << notes;
    EXPECT_EQ(env.Run({"status"}).exit_code, 0);
    break;
  }
  EXPECT_TRUE(saw_failure);
}

TEST(LockFileE2e, ARefusedOrNothingToDoApplyLeavesNoStateFolder) {
  StoreEnv env;
  auto original = Snapshot(env.site());
  std::filesystem::permissions(env.file("minipkg/jit.py"), std::filesystem::perms::owner_read);
  RunResult refused = env.Run({"apply", "--rule", Rule("minipkg-widen")});
  EXPECT_EQ(refused.exit_code, 3) << refused.err;
  EXPECT_NE(refused.err.find("read-only"), std::string::npos) << refused.err;
  EXPECT_FALSE(std::filesystem::exists(env.site() / ".archpatch"));
  std::filesystem::permissions(env.file("minipkg/jit.py"),
                               std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  RunResult nomatch = env.Run({"apply", "--rule", Rule("minipkg-nomatch")});
  EXPECT_EQ(nomatch.exit_code, 3) << nomatch.err;
  EXPECT_FALSE(std::filesystem::exists(env.site() / ".archpatch"));
  EXPECT_EQ(Snapshot(env.site()), original);
}

TEST(LockFileE2e, DryRunAndCheckTogetherAreRefused) {
  StoreEnv env;
  RunResult r = env.Run({"apply", "--rule", Rule("minipkg-widen"), "--dry-run", "--check"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "archpatch: error: '--dry-run' and '--check' cannot be used together\n");
  EXPECT_FALSE(std::filesystem::exists(env.site() / ".archpatch"));
}

}  // namespace
}  // namespace archpatch::e2e
