// The store end to end with the real binary: crashes injected after every write, two processes
// at once, JIT caches, verify against RECORD.
#include <chrono>
#include <set>

#include "store_e2e.h"

namespace archpatch::e2e {
namespace {

using nlohmann::json;

// Kill the apply after N writes (ARCHPATCH_FAIL_AFTER_WRITES), for every N: status reports the
// half-done transaction, the next revert rolls it back, and the tree is the original byte for byte.
TEST(CrashE2e, AfterEveryWriteStatusSeesItAndTheNextRunRollsBack) {
  int completed_at = -1;
  for (int n = 0; n < 40 && completed_at < 0; ++n) {
    StoreEnv env;
    auto original = Snapshot(env.site());
    RunResult crashed =
        env.Run({"apply", "--rule", Rule("minipkg-widen")}, "ARCHPATCH_FAIL_AFTER_WRITES=" + std::to_string(n));
    if (crashed.exit_code == 0) {
      completed_at = n;
      break;
    }
    EXPECT_EQ(crashed.exit_code, 3) << n;
    EXPECT_NE(crashed.err.find("injected crash after " + std::to_string(n) + " write(s)"), std::string::npos)
        << crashed.err;
    bool journaled = std::filesystem::exists(env.site() / ".archpatch/journal.json");
    RunResult status = env.Run({"status"});
    if (journaled) {
      EXPECT_EQ(status.exit_code, 1) << n;
      EXPECT_NE(status.out.find("HALF DONE: the apply of minipkg-widen"), std::string::npos) << status.out;
    }
    RunResult rollback = env.Run({"revert", "--all"});
    EXPECT_NE(rollback.exit_code, 3) << rollback.err;
    if (journaled) {
      EXPECT_NE(rollback.err.find("completed the apply of minipkg-widen"), std::string::npos) << n;
    }
    EXPECT_EQ(Snapshot(env.site()), original) << "after a crash at write " << n;
    EXPECT_FALSE(std::filesystem::exists(env.site() / ".archpatch/journal.json"));
  }
  EXPECT_GT(completed_at, 5);
}

TEST(CrashE2e, TheNextApplyRollsBackFirstThenApplies) {
  StoreEnv env;
  RunResult crashed = env.Run({"apply", "--rule", Rule("minipkg-widen")}, "ARCHPATCH_FAIL_AFTER_WRITES=5");
  ASSERT_EQ(crashed.exit_code, 3);
  RunResult r = env.Run({"apply", "--rule", Rule("minipkg-widen")});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("completed the apply of minipkg-widen that an earlier run left half done"), std::string::npos)
      << r.err;
  EXPECT_EQ(env.Manifest()["entries"].size(), 1u);
}

// Two real processes on one environment: the lock serialises them; both succeed and the
// manifest holds both entries. A third waits while someone else holds the lock.
TEST(LockE2e, TwoConcurrentAppliesSerialise) {
  StoreEnv env;
  std::string bin = ShellQuote(ARCHPATCH_BINARY), site = ShellQuote(env.site().string());
  std::string cmd = env.Env() + bin + " apply --rule " + ShellQuote(Rule("minipkg-py")) + " --site-packages " + site +
                    " >/dev/null 2>&1 & " + env.Env() + bin + " apply --rule " + ShellQuote(Rule("minipkg-cuh")) +
                    " --site-packages " + site + " >/dev/null 2>&1; b=$?; wait $!; a=$?; exit $((a + b))";
  ASSERT_EQ(std::system(("bash -c " + ShellQuote(cmd)).c_str()), 0);
  json m = env.Manifest();
  ASSERT_EQ(m["entries"].size(), 2u);
  std::set<std::string> ids = {m["entries"][0]["rule"], m["entries"][1]["rule"]};
  EXPECT_EQ(ids, (std::set<std::string>{"minipkg-py", "minipkg-cuh"}));
  EXPECT_EQ(env.Run({"status"}).exit_code, 0);
}

TEST(LockE2e, ASecondRunWaitsForTheLock) {
  StoreEnv env;
  std::filesystem::create_directories(env.site() / ".archpatch");
  std::string lock = ShellQuote((env.site() / ".archpatch/lock").string());
  std::string hold = "flock " + lock + " sleep 2 & sleep 0.3; ";
  auto start = std::chrono::steady_clock::now();
  std::string cmd = hold + env.Env() + ShellQuote(ARCHPATCH_BINARY) + " apply --rule " +
                    ShellQuote(Rule("minipkg-py")) + " --site-packages " + ShellQuote(env.site().string()) +
                    " >/dev/null 2>&1";
  ASSERT_EQ(std::system(("bash -c " + ShellQuote(cmd)).c_str()), 0);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_GE(seconds, 1.9);
  EXPECT_EQ(env.Manifest()["entries"].size(), 1u);
}

// A FlashInfer-shaped JIT cache under $HOME/.cache/flashinfer: the module built from the patched
// header goes, the other stays, and a symlink out of the cache is unlinked, its target kept.
TEST(CachesE2e, ApplyAndRevertClearOnlyModulesBuiltFromPatchedFiles) {
  StoreEnv env;
  std::filesystem::path ops = env.cache() / "0.3.1/120/cached_ops";
  std::string header = env.file("minipkg/include/allreduce.cuh").string();
  WriteFile(ops / "allreduce/build.ninja", "build allreduce.cuda.o: compile /x/allreduce.cu\n");
  WriteFile(ops / "allreduce/.ninja_deps", "ninja deps: /x/allreduce.cu " + header + "\n");
  WriteFile(ops / "allreduce/allreduce.so", std::string(4096, 'x'));
  WriteFile(ops / "sampling/build.ninja", "build sampling.cuda.o: compile /x/sampling.cu\n");
  WriteFile(ops / "sampling/.ninja_deps", "/x/sampling.cu\n");
  WriteFile(ops / "sampling/sampling.so", "so");
  WriteFile(env.dir() / "precious", "keep");
  std::filesystem::create_symlink(env.dir() / "precious", ops / "allreduce/link");

  RunResult kept = env.Run({"apply", "--rule", Rule("minipkg-widen"), "--no-clear-cache"});
  ASSERT_EQ(kept.exit_code, 0) << kept.err;
  EXPECT_TRUE(std::filesystem::exists(ops / "allreduce/allreduce.so"));
  ASSERT_EQ(env.Run({"revert", "--all", "--no-clear-cache"}).exit_code, 0);

  RunResult r = env.Run({"apply", "--rule", Rule("minipkg-widen"), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["rules"][0]["caches_cleared"][0]["name"], "flashinfer");
  EXPECT_EQ(j["rules"][0]["caches_cleared"][0]["files"], 4);
  EXPECT_FALSE(std::filesystem::exists(ops / "allreduce"));
  EXPECT_TRUE(std::filesystem::exists(ops / "sampling/sampling.so"));
  EXPECT_EQ(ReadFile(env.dir() / "precious"), "keep");
  EXPECT_EQ(env.Manifest()["entries"][0]["caches_cleared"][0]["files"], 4);
}

TEST(CachesE2e, ListAndClearByHand) {
  StoreEnv env;
  WriteFile(env.home() / ".triton/cache/abc/kernel.cubin", std::string(100, 'k'));
  RunResult list = RunArchpatch({"caches", "list", "--json"}, env.Env("TRITON_CACHE_DIR= "));
  ASSERT_EQ(list.exit_code, 0) << list.err;
  json caches = json::parse(list.out)["caches"];
  auto triton = std::find_if(caches.begin(), caches.end(), [](const json& c) { return c["name"] == "triton"; });
  ASSERT_NE(triton, caches.end());
  EXPECT_EQ((*triton)["root"], (env.home() / ".triton/cache").string());
  EXPECT_EQ((*triton)["files"], 1);
  EXPECT_EQ((*triton)["bytes"], 100);

  RunResult clear = RunArchpatch({"caches", "clear", "triton"}, env.Env("TRITON_CACHE_DIR= "));
  EXPECT_EQ(clear.exit_code, 0) << clear.err;
  EXPECT_NE(clear.out.find("freed 1 file(s), 100 B"), std::string::npos) << clear.out;
  EXPECT_FALSE(std::filesystem::exists(env.home() / ".triton/cache/abc"));
  EXPECT_TRUE(std::filesystem::exists(env.home() / ".triton/cache"));
}

TEST(CachesE2e, RefusesTheHomeFolderAndRoot) {
  StoreEnv env;
  WriteFile(env.home() / "precious.txt", "keep");
  RunResult r =
      RunArchpatch({"caches", "clear", "triton"}, env.Env("TRITON_CACHE_DIR=" + ShellQuote(env.home().string())));
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.out.find("refusing to clear"), std::string::npos) << r.out;
  EXPECT_TRUE(std::filesystem::exists(env.home() / "precious.txt"));
  RunResult slash = RunArchpatch({"caches", "clear", "triton"}, env.Env("TRITON_CACHE_DIR=/"));
  EXPECT_EQ(slash.exit_code, 3);
  EXPECT_NE(slash.out.find("refusing to clear '/'"), std::string::npos) << slash.out;
}

TEST(VerifyE2e, ReportsFilesThatDifferFromRecordAndNamesArchpatchPatches) {
  StoreEnv env;
  RunResult clean = env.Run({"verify"});
  EXPECT_EQ(clean.exit_code, 0) << clean.err;
  ASSERT_EQ(env.Run({"apply", "--rule", Rule("minipkg-py")}).exit_code, 0);
  RunResult patched = env.Run({"verify", "--package", "minipkg", "--json"});
  EXPECT_EQ(patched.exit_code, 0) << patched.err;
  json j = json::parse(patched.out);
  EXPECT_EQ(j["distributions"][0]["problems"][0]["state"], "patched");
  EXPECT_EQ(j["distributions"][0]["problems"][0]["rule"], "minipkg-py");
  WriteFile(env.file("minipkg/__init__.py"), "# edited by hand\n");
  std::filesystem::remove(env.file("minipkg/data/kernel.so"));
  RunResult drift = env.Run({"verify"});
  EXPECT_EQ(drift.exit_code, 1);
  EXPECT_NE(drift.out.find("modified  minipkg 1.0.0  minipkg/__init__.py"), std::string::npos) << drift.out;
  EXPECT_NE(drift.out.find("missing   minipkg 1.0.0  minipkg/data/kernel.so"), std::string::npos) << drift.out;
  EXPECT_NE(drift.out.find("patched   minipkg 1.0.0  minipkg/jit.py  (archpatch rule 'minipkg-py')"), std::string::npos)
      << drift.out;
  RunResult unknown = env.Run({"verify", "--package", "nope"});
  EXPECT_EQ(unknown.exit_code, 2);
}

}  // namespace
}  // namespace archpatch::e2e

namespace archpatch::e2e {
namespace {

// The dangerous bytecode case through the binary: an unchecked-hash pyc (never validated by
// CPython) and the source's mtime put back after apply; the import must still see the patch.
TEST(PycacheE2e, ImportSeesThePatchDespiteAnUncheckedHashPyc) {
  if (std::system("python3 -c pass >/dev/null 2>&1") != 0) GTEST_SKIP() << "python3 not found";
  StoreEnv env;
  std::string site = ShellQuote(env.site().string());
  std::string compile = "cd " + site +
                        " && python3 -c \"import py_compile as p; [p.compile('minipkg/jit.py', "
                        "optimize=o, invalidation_mode=p.PycInvalidationMode.UNCHECKED_HASH) for o in (0, 1, 2)]\"";
  ASSERT_EQ(std::system(compile.c_str()), 0);
  auto mtime = std::filesystem::last_write_time(env.file("minipkg/jit.py"));
  RunResult r = env.Run({"apply", "--rule", Rule("minipkg-widen")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::filesystem::last_write_time(env.file("minipkg/jit.py"), mtime);
  EXPECT_TRUE(std::filesystem::is_empty(env.file("minipkg/__pycache__")));
  std::string out = env.dir() / "out.txt";
  std::string import =
      "cd " + site +
      " && python3 -c 'import minipkg.jit as j; print(j.gen_module()[\"supported_major_versions\"])' > " +
      ShellQuote(out);
  ASSERT_EQ(std::system(import.c_str()), 0);
  EXPECT_EQ(ReadFile(out), "[9, 10, 12]\n");
}

}  // namespace
}  // namespace archpatch::e2e
