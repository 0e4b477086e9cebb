// The store's safety promises against hostile or damaged input, with the real binary (issue 16):
// no rule reaches archpatch's own state, paths read back from the state are checked like a
// rule's, damaged backups and journals refuse up front and always leave a way out.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/xattr.h>

#include "store_e2e.h"

namespace archpatch::e2e {
namespace {

using nlohmann::json;

// Every file under `root`, the state folder included.
std::map<std::string, std::string> SnapshotAll(const std::filesystem::path& root) {
  return Snapshot(root, WithState::yes);
}

std::string ReplaceRule(const std::string& id, const std::string& file) {
  return "id: " + id +
         "\nsummary: edits archpatch's own state\nnotes: fixture\ndistribution: minipkg\n"
         "targets: [sm_120]\nedits:\n  - file: \"" +
         file + "\"\n    replace:\n      old: \"a\"\n      new: \"b\"\n";
}

// Item 1: whatever the spelling, a rule naming .archpatch is refused by `rules check` and by
// apply, and not a byte of the state (backups, manifest) changes.
TEST(StateSafetyE2e, NoRuleCanEditArchpatchsOwnState) {
  StoreEnv env;
  ASSERT_EQ(env.Run({"apply", "--rule", Rule("minipkg-py")}).exit_code, 0);
  std::filesystem::create_directory_symlink("../.archpatch", env.file("minipkg/state"));
  int n = 0;
  for (const char* file :
       {".archpatch/backups/*", ".archpatch/manifest.json", "./.archpatch/manifest.json", ".ARCHPATCH/manifest.json",
        "minipkg/../.archpatch/manifest.json", "minipkg/state/manifest.json", "minipkg/state/backups/*"}) {
    std::filesystem::path rule = env.dir() / ("state" + std::to_string(++n) + ".yaml");
    WriteFile(rule, ReplaceRule("state" + std::to_string(n), file));
    auto before = SnapshotAll(env.site());
    RunResult check = RunArchpatch({"rules", "check", rule.string()});
    RunResult apply = env.Run({"apply", "--rule", rule.string()});
    EXPECT_NE(apply.exit_code, 0) << file;
    EXPECT_NE(apply.exit_code, 1) << file;
    EXPECT_EQ(SnapshotAll(env.site()), before) << file;
    if (std::string(file).find("state/") == std::string::npos) {  // a symlink is a property of the tree
      EXPECT_EQ(check.exit_code, 2) << file << check.out << check.err;
      EXPECT_EQ(apply.exit_code, 2) << file;
    } else {
      EXPECT_EQ(apply.exit_code, 3) << file;
      EXPECT_NE(apply.err.find("'minipkg/state' is a symlink"), std::string::npos) << apply.err;
    }
  }
  EXPECT_EQ(env.Run({"revert", "--all"}).exit_code, 0);
}

// A manifest whose entry points outside site-packages (absolute, '..', through a symlink, into
// .archpatch): revert refuses naming the manifest, and the file there keeps its bytes.
TEST(StateSafetyE2e, ManifestPathsAreCheckedLikeARulesBeforeRevertWrites) {
  for (std::string bad : {"ABS", "../victim.py", "minipkg/out/victim.py", ".archpatch/victim.py"}) {
    StoreEnv env;
    ASSERT_EQ(env.Run({"apply", "--rule", Rule("minipkg-py")}).exit_code, 0);
    std::filesystem::create_directories(env.dir() / "out");
    std::filesystem::create_directory_symlink(env.dir() / "out", env.file("minipkg/out"));
    // The victim holds the patched bytes, so that a revert trusting the path would overwrite it.
    const std::string patched = ReadFile(env.file("minipkg/jit.py"));
    std::filesystem::path victim = bad == "ABS"                    ? env.dir() / "abs/victim.py"
                                   : bad.starts_with("..")         ? env.dir() / "victim.py"
                                   : bad.starts_with(".archpatch") ? env.site() / ".archpatch/victim.py"
                                                                   : env.dir() / "out/victim.py";
    WriteFile(victim, patched);
    if (bad == "ABS") bad = victim.string();
    json manifest = env.Manifest();
    manifest["entries"][0]["files"][0]["path"] = bad;
    WriteFile(env.site() / ".archpatch/manifest.json", manifest.dump(2));
    auto before = SnapshotAll(env.dir());
    RunResult r = env.Run({"revert", "--all", "--force"});
    EXPECT_EQ(r.exit_code, 3) << bad << r.err;
    EXPECT_NE(r.err.find("manifest.json"), std::string::npos) << r.err;
    EXPECT_EQ(ReadFile(victim), patched) << bad;
    EXPECT_EQ(SnapshotAll(env.dir()), before) << bad;
    if (bad.find("/out/") == std::string::npos) {  // a refused record: one exit code for a damaged manifest
      EXPECT_EQ(env.Run({"status"}).exit_code, 3) << bad;
    }
  }
}

// A planted journal.json naming a file outside: the next apply of any rule refuses to replay it.
TEST(StateSafetyE2e, APlantedJournalIsNotReplayed) {
  StoreEnv env;
  ASSERT_EQ(env.Run({"apply", "--rule", Rule("minipkg-py")}).exit_code, 0);
  const std::string patched = ReadFile(env.file("minipkg/jit.py"));
  WriteFile(env.dir() / "victim.py", patched);
  json f = env.Manifest()["entries"][0]["files"][0];
  json journal = {{"format", 1},
                  {"operation", "apply"},
                  {"transaction", "planted"},
                  {"started_at", "now"},
                  {"rules", {"x"}},
                  {"files",
                   {{{"path", "../victim.py"},
                     {"original_sha256", f["original_sha256"]},
                     {"patched_sha256", f["patched_sha256"]},
                     {"backup", f["backup"]}}}}};
  WriteFile(env.site() / ".archpatch/journal.json", journal.dump());
  auto before = SnapshotAll(env.dir());
  RunResult r = env.Run({"apply", "--rule", Rule("minipkg-cuh")});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("journal.json"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("contains '..'"), std::string::npos) << r.err;
  EXPECT_EQ(SnapshotAll(env.dir()), before);
  EXPECT_EQ(ReadFile(env.dir() / "victim.py"), patched);
}

// Item 3: a damaged or a missing backup refuses the whole revert before its first write; after
// the package is reinstalled (here: the original copied back) the revert goes through.
TEST(StateSafetyE2e, ADamagedOrMissingBackupRefusesTheWholeRevertUpFront) {
  for (bool missing : {false, true}) {
    StoreEnv env;
    auto original = Snapshot(env.site());
    ASSERT_EQ(env.Run({"apply", "--rule", Rule("minipkg-widen")}).exit_code, 0);
    json files = env.Manifest()["entries"][0]["files"];
    ASSERT_EQ(files.size(), 2u);
    // The file restored last: the old revert restored the other one first, then died.
    std::filesystem::path backup = env.site() / ".archpatch" / files[0]["backup"].get<std::string>();
    if (missing) {
      std::filesystem::remove(backup);
    } else {
      WriteFile(backup, "damaged");
    }
    auto before = SnapshotAll(env.site());
    RunResult r = env.Run({"revert", "--all"});
    EXPECT_EQ(r.exit_code, 3);
    EXPECT_NE(r.err.find(missing ? "is missing" : "is damaged"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("nothing was reverted"), std::string::npos) << r.err;
    EXPECT_EQ(SnapshotAll(env.site()), before);
    EXPECT_EQ(env.Run({"revert", "--all", "--force"}).exit_code, 3);
    EXPECT_EQ(SnapshotAll(env.site()), before);
    EXPECT_EQ(env.Run({"status"}).exit_code, 0);  // not wedged: nothing is half done
    // The way out the message names: reinstall, then revert.
    const std::string path = files[0]["path"];
    WriteFile(env.file(path), original.at(path));
    RunResult after = env.Run({"revert", "--all"});
    EXPECT_EQ(after.exit_code, 0) << after.err;
    EXPECT_EQ(Snapshot(env.site()), original);
  }
}

// Item 3: a half-done apply whose backup is damaged, and a truncated journal: status says what
// to run, apply and revert refuse with nothing changed, `revert --force` gets out.
TEST(StateSafetyE2e, AHalfDoneTransactionThatCannotBeRolledBackWholeHasAWayOut) {
  for (bool truncate : {false, true}) {
    StoreEnv env;
    auto original = Snapshot(env.site());
    // Killed after the backups, the journal and the first file (write 5 fails).
    ASSERT_EQ(env.Run({"apply", "--rule", Rule("minipkg-widen")}, "ARCHPATCH_FAIL_AFTER_WRITES=5").exit_code, 3);
    std::filesystem::path journal_path = env.site() / ".archpatch/journal.json";
    ASSERT_TRUE(std::filesystem::exists(journal_path));
    json journal = json::parse(ReadFile(journal_path));
    const std::string first = journal["files"][0]["path"];
    ASSERT_NE(ReadFile(env.file(first)), original.at(first));  // patched
    if (truncate) {
      std::string bytes = ReadFile(journal_path);
      WriteFile(journal_path, bytes.substr(0, bytes.size() / 2));
    } else {
      WriteFile(env.site() / ".archpatch" / journal["files"][0]["backup"].get<std::string>(), "damaged");
    }
    auto before = SnapshotAll(env.site());
    RunResult status = env.Run({"status"});
    const std::string way_out = "'archpatch revert --force --all'";
    EXPECT_NE(status.out.find(way_out) == std::string::npos ? status.err.find(way_out) : 0, std::string::npos)
        << status.out << status.err;
    for (const std::vector<std::string>& cmd :
         {std::vector<std::string>{"apply", "--rule", Rule("minipkg-widen")}, {"revert", "--all"}}) {
      RunResult r = env.Run(cmd);
      EXPECT_EQ(r.exit_code, 3) << r.err;
      EXPECT_NE(r.err.find(way_out), std::string::npos) << r.err;
      EXPECT_NE(r.err.find("nothing was changed"), std::string::npos) << r.err;
      EXPECT_EQ(SnapshotAll(env.site()), before);
    }
    RunResult forced = env.Run({"revert", "--force", "--all"});
    EXPECT_NE(forced.exit_code, 3) << forced.err;
    EXPECT_NE(forced.err.find("journal.json.damaged"), std::string::npos) << forced.err;
    EXPECT_FALSE(std::filesystem::exists(journal_path));
    EXPECT_TRUE(std::filesystem::exists(env.site() / ".archpatch/journal.json.damaged"));
    EXPECT_NE(env.Run({"status"}).exit_code, 3);
    // The damaged backup's file stays patched (its original is lost): the message said so.
    if (!truncate) {
      EXPECT_NE(forced.err.find(first), std::string::npos) << forced.err;
    }
    // Reinstalling the package puts the tree back; archpatch applies again.
    WriteFile(env.file(first), original.at(first));
    auto now = Snapshot(env.site());
    // A journal that does not parse names no file: the crash's temp file stays (documented).
    if (truncate) std::erase_if(now, [](const auto& f) { return f.first.ends_with(".archpatch-tmp"); });
    EXPECT_EQ(now, original);
    EXPECT_EQ(env.Run({"apply", "--rule", Rule("minipkg-widen")}).exit_code, 0);
  }
}

// Item 15: a damaged manifest.json gives one exit code, 3, from every command, and nothing changes.
TEST(StateSafetyE2e, ADamagedManifestGivesExitThreeFromEveryCommand) {
  StoreEnv env;
  ASSERT_EQ(env.Run({"apply", "--rule", Rule("minipkg-py")}).exit_code, 0);
  WriteFile(env.site() / ".archpatch/manifest.json", "{\"format\": 1, \"entries\": [");
  auto before = SnapshotAll(env.site());
  for (const std::vector<std::string>& cmd : {std::vector<std::string>{"status"},
                                              {"verify"},
                                              {"revert", "--all"},
                                              {"revert", "--rule", "minipkg-py"},
                                              {"apply", "--rule", Rule("minipkg-cuh")},
                                              {"apply", "--rule", Rule("minipkg-cuh"), "--dry-run"}}) {
    RunResult r = env.Run(cmd);
    EXPECT_EQ(r.exit_code, 3) << cmd[0] << " " << cmd.back() << r.err;
    EXPECT_NE(r.err.find("manifest.json"), std::string::npos) << r.err;
  }
  EXPECT_EQ(SnapshotAll(env.site()), before);
}

// Item 15: apply keeps a file's extended attributes; revert gives back the original's bytes,
// attributes and modification time.
TEST(StateSafetyE2e, XattrsAndMtimeSurviveApplyAndRevert) {
  StoreEnv env;
  std::filesystem::path jit = env.file("minipkg/jit.py");
  ASSERT_EQ(setxattr(jit.c_str(), "user.origin", "wheel", 5, 0), 0) << "user xattrs unsupported here";
  timespec times[2] = {{1600000000, 123456789}, {1600000000, 123456789}};
  ASSERT_EQ(utimensat(AT_FDCWD, jit.c_str(), times, 0), 0);
  auto attribute = [&] {
    char value[64] = {};
    ssize_t n = getxattr(jit.c_str(), "user.origin", value, sizeof value);
    return n < 0 ? std::string("(none)") : std::string(value, static_cast<size_t>(n));
  };
  auto mtime = [&] {
    struct stat st;
    stat(jit.c_str(), &st);
    return int64_t{st.st_mtim.tv_sec} * 1000000000 + st.st_mtim.tv_nsec;
  };
  const int64_t original_mtime = mtime();
  ASSERT_EQ(env.Run({"apply", "--rule", Rule("minipkg-py")}).exit_code, 0);
  EXPECT_EQ(attribute(), "wheel");
  EXPECT_NE(mtime(), original_mtime);  // new bytes, new time: anything that caches by mtime sees the change
  RunResult r = env.Run({"revert", "--all"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(attribute(), "wheel");
  EXPECT_EQ(mtime(), original_mtime);
}

}  // namespace
}  // namespace archpatch::e2e
