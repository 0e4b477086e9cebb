// Symlinks in and around archpatch's state, a folder swapped for a symlink between check and
// write (a real race, stopped at the write with ARCHPATCH_STOP_BEFORE_WRITE), and a user who may
// only read the environment (issue 16, items 6, 8 and 14).
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store_e2e.h"

namespace archpatch::e2e {
namespace {

// Item 6: a symlinked .archpatch, backups/, lock, manifest.json or journal.json: apply and revert
// refuse (or replace the link itself), and the link's target never gets a byte.
TEST(StateLinksE2e, SymlinksInTheStateFolderAreNeverFollowed) {
  for (const std::string link :
       {".archpatch", ".archpatch/backups", ".archpatch/lock", ".archpatch/manifest.json", ".archpatch/journal.json"}) {
    StoreEnv env;
    std::filesystem::path target = env.dir() / "target";
    std::filesystem::create_directories(target);
    WriteFile(target / "keep", "keep\n");
    const bool dir = link == ".archpatch" || link == ".archpatch/backups";
    std::filesystem::create_directories(env.site() / ".archpatch");
    if (dir) {
      if (link == ".archpatch") std::filesystem::remove(env.site() / ".archpatch");
      std::filesystem::create_directory_symlink(target, env.site() / link);
    } else {
      std::filesystem::create_symlink(target / "file", env.site() / link);
    }
    RunResult r = env.Run({"apply", "--rule", Rule("minipkg-widen")});
    EXPECT_EQ(r.exit_code, 3) << link << r.err;  // refused ("a symlink is on the way", "not a regular file")
    EXPECT_EQ(Snapshot(target), (std::map<std::string, std::string>{{"keep", "keep\n"}})) << link;
    EXPECT_FALSE(std::filesystem::exists(target / "file")) << link;
    EXPECT_EQ(ReadFile(env.file("minipkg/jit.py")), ReadFile(StoreFixture("site-packages/minipkg/jit.py"))) << link;
  }
}

// Runs archpatch with `env_prefix` and stops it before write `stop_before`; `meanwhile` runs while
// it is stopped, then it goes on. Returns its exit code; stderr lands in `err`.
int RunStoppedAt(const StoreEnv& env, const std::vector<std::string>& args, int stop_before,
                 const std::function<void()>& meanwhile, std::string& err) {
  std::filesystem::path err_path = env.dir() / "stderr";
  std::string cmd = "exec env " + env.Env("ARCHPATCH_STOP_BEFORE_WRITE=" + std::to_string(stop_before)) +
                    ShellQuote(ARCHPATCH_BINARY);
  for (const std::string& a : args) cmd += " " + ShellQuote(a);
  cmd += " --site-packages " + ShellQuote(env.site().string()) + " >/dev/null 2>" + ShellQuote(err_path.string());
  pid_t pid = fork();
  if (pid == 0) {
    execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, WUNTRACED);
  EXPECT_TRUE(WIFSTOPPED(status)) << "never reached write " << stop_before;
  if (WIFSTOPPED(status)) {
    meanwhile();
    kill(pid, SIGCONT);
    waitpid(pid, &status, 0);
  }
  err = ReadFile(err_path);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Item 8: apply has checked every path and written its journal; before it writes the files, the
// folder of one of them becomes a symlink to a copy elsewhere (same bytes, so the hash still
// matches). The write must not land in the copy. Writes: 0 backups/, 1-2 backups, 3 journal,
// 4 the first file, 5 the second (minipkg/include/allreduce.cuh).
TEST(RaceE2e, AFolderSwappedForASymlinkAfterTheCheckIsNotWrittenThrough) {
  StoreEnv env;
  std::filesystem::path elsewhere = env.dir() / "elsewhere";
  std::filesystem::create_directories(elsewhere);
  std::filesystem::copy(env.file("minipkg/include"), elsewhere / "include", std::filesystem::copy_options::recursive);
  const std::string header = ReadFile(elsewhere / "include/allreduce.cuh");
  std::string err;
  int code = RunStoppedAt(
      env, {"apply", "--rule", Rule("minipkg-widen")}, 4,
      [&] {
        std::filesystem::rename(env.file("minipkg/include"), env.dir() / "moved-include");
        std::filesystem::create_directory_symlink(elsewhere / "include", env.file("minipkg/include"));
      },
      err);
  EXPECT_EQ(code, 3) << err;
  EXPECT_NE(err.find("is a symlink"), std::string::npos) << err;
  EXPECT_EQ(ReadFile(elsewhere / "include/allreduce.cuh"), header);
  // The way out: the next revert sees the symlink in the journal's path and says what to run;
  // the forced one puts back what it safely can.
  RunResult revert = env.Run({"revert", "--all"});
  EXPECT_EQ(revert.exit_code, 3) << revert.err;
  EXPECT_NE(revert.err.find("'minipkg/include' is a symlink"), std::string::npos) << revert.err;
  RunResult forced = env.Run({"revert", "--all", "--force"});
  EXPECT_NE(forced.exit_code, 3) << forced.err;
  EXPECT_EQ(ReadFile(env.file("minipkg/jit.py")), ReadFile(StoreFixture("site-packages/minipkg/jit.py")));
  EXPECT_EQ(ReadFile(elsewhere / "include/allreduce.cuh"), header);
}

// Item 8, the state side: .archpatch/backups swapped for a symlink after the check.
TEST(RaceE2e, TheStateFolderSwappedForASymlinkIsNotWrittenThrough) {
  StoreEnv env;
  std::filesystem::path elsewhere = env.dir() / "elsewhere";
  std::filesystem::create_directories(elsewhere);
  std::string err;
  int code = RunStoppedAt(
      env, {"apply", "--rule", Rule("minipkg-widen")}, 1,
      [&] {
        std::filesystem::remove(env.site() / ".archpatch/backups");
        std::filesystem::create_directory_symlink(elsewhere, env.site() / ".archpatch/backups");
      },
      err);
  EXPECT_EQ(code, 3) << err;
  EXPECT_TRUE(std::filesystem::is_empty(elsewhere));
  EXPECT_EQ(ReadFile(env.file("minipkg/jit.py")), ReadFile(StoreFixture("site-packages/minipkg/jit.py")));
}

// Item 14: status and verify for a user who may only read the environment: no lock file is
// created or opened for writing, and status reports what is applied (exit 0).
TEST(ReadOnlyE2e, StatusAndVerifyWorkWithReadAccessOnly) {
  StoreEnv env;
  ASSERT_EQ(env.Run({"apply", "--rule", Rule("minipkg-py")}).exit_code, 0);
  std::string bin = ShellQuote(ARCHPATCH_BINARY), site = ShellQuote(env.site().string());
  // As root: a user without write access (nobody); elsewhere the tree is made read-only.
  std::string as_reader = geteuid() == 0 ? "setpriv --reuid=65534 --regid=65534 --clear-groups " : "";
  ASSERT_EQ(std::system(("chmod -R a+rX " + ShellQuote(env.dir().string())).c_str()), 0);
  if (geteuid() != 0) {
    ASSERT_EQ(std::system(("chmod -R a-w " + site).c_str()), 0);
  }
  for (bool lock_exists : {true, false}) {
    if (!lock_exists) std::filesystem::remove(env.site() / ".archpatch/lock");
    std::string out = (env.dir() / "out").string();
    int status = std::system(("cd / && " + env.Env() + as_reader + bin + " status --site-packages " + site + " >" +
                              ShellQuote(out) + " 2>&1")
                                 .c_str());
    EXPECT_EQ(WEXITSTATUS(status), 0) << ReadFile(out);
    EXPECT_NE(ReadFile(out).find("minipkg-py"), std::string::npos) << ReadFile(out);
    status = std::system(("cd / && " + env.Env() + as_reader + bin + " verify --site-packages " + site + " >" +
                          ShellQuote(out) + " 2>&1")
                             .c_str());
    EXPECT_NE(WEXITSTATUS(status), 3) << ReadFile(out);
    EXPECT_EQ(ReadFile(out).find("cannot open"), std::string::npos) << ReadFile(out);
    EXPECT_EQ(std::filesystem::exists(env.site() / ".archpatch/lock"), lock_exists);
  }
  if (geteuid() != 0) {
    EXPECT_EQ(std::system(("chmod -R u+w " + ShellQuote(env.dir().string())).c_str()), 0);
  }
}

}  // namespace
}  // namespace archpatch::e2e
