// Hostile and clumsy input, with the real binary (issue 16, items 5, 7, 9, 10 and 15): every input
// file is bounded and must be a regular file, a rule cannot crash or hang the parser or the glob
// walk, module mode is Ansible's contract only, and the module leaves nothing in /tmp to plant.
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "e2e.h"

namespace archpatch::e2e {
namespace {

namespace fs = std::filesystem;

const fs::path kSource = ARCHPATCH_SOURCE_DIR;
const fs::path kMinipkg = kSource / "examples/minipkg";

// Runs archpatch from `cwd` (RunArchpatch runs from the source tree).
RunResult RunIn(const fs::path& cwd, const std::vector<std::string>& args, const std::string& env = "") {
  const fs::path out = cwd / ".run.out", err = cwd / ".run.err";
  std::string cmd = "cd " + ShellQuote(cwd.string()) + " && " + env + ShellQuote(ARCHPATCH_BINARY);
  for (const std::string& a : args) cmd += " " + ShellQuote(a);
  cmd += " >" + ShellQuote(out.string()) + " 2>" + ShellQuote(err.string()) + " </dev/null";
  const int status = std::system(cmd.c_str());
  RunResult r{WIFEXITED(status) ? WEXITSTATUS(status) : -1, ReadFile(out), ReadFile(err)};
  fs::remove(out);
  fs::remove(err);
  return r;
}

fs::path Site(const TempDir& dir) {
  const fs::path site = dir.path() / "site-packages";
  fs::copy(kMinipkg / "site-packages", site, fs::copy_options::recursive);
  return site;
}

std::string HomeEnv(const TempDir& dir) {
  return "HOME=" + ShellQuote(dir.path().string()) + " MINIFI_WORKSPACE_BASE=" + ShellQuote(dir.path().string()) + " ";
}

const std::string kRule = (kMinipkg / "rules/minifi-allreduce.yaml").string();

// --- item 10: every input bounded, devices and FIFOs refused -------------------------------------

TEST(InputE2e, RuleAndPlanFromDevZeroAreRefusedWithExitTwo) {
  TempDir dir;
  const fs::path site = Site(dir);
  RunResult r = RunArchpatch({"apply", "--rule", "/dev/zero", "--site-packages", site.string()}, HomeEnv(dir));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.err, "archpatch: error: /dev/zero: not a regular file\n");
  r = RunArchpatch({"apply", "--plan", "/dev/zero"}, HomeEnv(dir));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.err, "archpatch: error: /dev/zero: not a regular file\n");
  const fs::path link = dir.path() / "zero.yaml";  // rules check reads only *.yaml names
  fs::create_symlink("/dev/zero", link);
  r = RunArchpatch({"rules", "check", link.string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.err, "archpatch: error: " + link.string() + ": not a regular file\n");
}

TEST(InputE2e, AFifoRuleIsRefusedWithoutWaitingForAWriter) {
  TempDir dir;
  const fs::path fifo = dir.path() / "rule.yaml";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  RunResult r = RunArchpatch({"rules", "check", fifo.string()}, "timeout 20 ");
  EXPECT_EQ(r.exit_code, 2) << "124 means it hung on the FIFO; " << r.err;
  EXPECT_NE(r.err.find(fifo.string() + ": not a regular file"), std::string::npos) << r.err;
}

TEST(InputE2e, AnOversizeRuleOrPlanIsRefusedWithItsLimit) {
  TempDir dir;
  const fs::path site = Site(dir);
  const fs::path rule = dir.path() / "minifi-allreduce.yaml";
  WriteFile(rule, ReadFile(kRule) + "#" + std::string(1 << 20, 'x') + "\n");
  RunResult r = RunArchpatch({"apply", "--rule", rule.string(), "--site-packages", site.string()}, HomeEnv(dir));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.err, "archpatch: error: " + rule.string() + ": larger than 1048576 bytes\n");
  EXPECT_FALSE(fs::exists(site / ".archpatch")) << "nothing changed on disk";
}

// --- item 9: long ids and macros ------------------------------------------------------------------

TEST(InputE2e, A30KilobyteIdOrMacroIsAnErrorNotACrash) {
  TempDir dir;
  std::string text = ReadFile(kRule);
  const fs::path by_id = dir.path() / "long-id.yml";
  WriteFile(by_id, "id: " + std::string(30000, 'a') + text.substr(text.find('\n')));
  RunResult r = RunArchpatch({"rules", "check", by_id.string()});
  EXPECT_EQ(r.exit_code, 2) << "a crash exits -1 or 139: " << r.err;
  EXPECT_EQ(r.err, "archpatch: error: " + by_id.string() +
                       ":1:5: id 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa... (30000 bytes)' is longer than 128 bytes\n");
  const fs::path by_macro = dir.path() / "minifi-allreduce.yaml";
  const std::string macro = "macro: __CUDA_ARCH__";
  text.replace(text.find(macro), macro.size(), "macro: " + std::string(30000, 'M'));
  WriteFile(by_macro, text);
  r = RunArchpatch({"rules", "check", by_macro.string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("'macro' is longer than 256 bytes"), std::string::npos) << r.err;
}

// --- item 15: a second YAML document ----------------------------------------------------------------

TEST(InputE2e, ASecondYamlDocumentInARuleIsRefusedAtItsPlace) {
  TempDir dir;
  const fs::path rule = dir.path() / "minifi-allreduce.yaml";
  const std::string text = ReadFile(kRule);
  const int lines = static_cast<int>(std::count(text.begin(), text.end(), '\n'));
  WriteFile(rule, text + "---\n" + text);
  RunResult r = RunArchpatch({"rules", "check", rule.string()});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_EQ(r.err, fmt::format("archpatch: error: {}:{}:1: a second YAML document; a file holds one (put each "
                               "rule in its own file)\n",
                               rule.string(), lines + 1));
}

// --- item 10: exponential globs -------------------------------------------------------------------

TEST(InputE2e, AnExponentialGlobAnswersQuickly) {
  TempDir dir;
  const fs::path site = Site(dir);
  WriteFile(site / "minifi" / (std::string(59, 'a') + "c"), "x\n");
  std::string text = ReadFile(kRule);
  text.replace(text.find("file: minifi/jit/comm.py"), 24, "file: minifi/*a*a*a*a*a*a*a*a*a*ab");
  const fs::path rule = dir.path() / "minifi-allreduce.yaml";
  WriteFile(rule, text);
  const auto start = std::chrono::steady_clock::now();
  RunResult r = RunArchpatch({"apply", "--check", "--rule", rule.string(), "--site-packages", site.string()},
                             HomeEnv(dir) + "timeout 30 ");
  EXPECT_NE(r.exit_code, 124) << "timed out";
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;  // the edit expects 1 gate and the glob matches no file
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

// --- item 7: module mode only by Ansible's contract -----------------------------------------------

TEST(InputE2e, AFileNamedLikeTheCommandIsNeverModuleArguments) {
  TempDir dir;
  const fs::path site = Site(dir);
  ASSERT_EQ(RunArchpatch({"apply", "--rule", kRule, "--site-packages", site.string()}, HomeEnv(dir)).exit_code, 0);
  const std::string patched = ReadFile(site / "minifi/jit/comm.py");
  const fs::path work = dir.path() / "work";
  fs::create_directories(work);
  // The planted file even carries Ansible's keys: a command name is always the command.
  const nlohmann::json planted = {
      {"state", "absent"}, {"site_packages", site.string()}, {"_ansible_check_mode", false}};
  WriteFile(work / "status", planted.dump());
  RunResult r = RunIn(work, {"status"}, HomeEnv(dir));
  EXPECT_EQ(r.out.find("\"rc\""), std::string::npos) << "answered as a module: " << r.out;
  EXPECT_EQ(ReadFile(site / "minifi/jit/comm.py"), patched) << "status must not revert";
  // A file that is not a command name but lacks Ansible's keys is an unknown command.
  WriteFile(work / "args", nlohmann::json{{"state", "absent"}, {"site_packages", site.string()}}.dump());
  r = RunIn(work, {"args"}, HomeEnv(dir));
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("unknown command 'args'"), std::string::npos) << r.err;
  EXPECT_EQ(ReadFile(site / "minifi/jit/comm.py"), patched);
  // Ansible's own form reverts.
  WriteFile(work / "args", nlohmann::json{{"state", "absent"},
                                          {"site_packages", site.string()},
                                          {"_ansible_module_name", "archpatch"},
                                          {"_ansible_check_mode", false}}
                               .dump());
  r = RunIn(work, {(work / "args").string()}, HomeEnv(dir));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out, nullptr, false).value("changed", false), true) << r.out;
  EXPECT_NE(ReadFile(site / "minifi/jit/comm.py"), patched);
}

// --- item 5: no predictable temporary file --------------------------------------------------------

TEST(InputE2e, TheModuleCreatesNoFileInTmpSoNoPlantedSymlinkIsFollowed) {
  TempDir dir;
  const fs::path site = Site(dir), tmp = dir.path() / "tmp", victim = dir.path() / "victim";
  fs::create_directories(tmp);
  WriteFile(victim, "precious\n");
  // The old module wrote $TMPDIR/archpatch-ansible-<pid>.out|.err; plant links for the next pids.
  int last = std::stoi(ReadFile("/proc/sys/kernel/ns_last_pid"));
  for (int pid = last + 1; pid <= last + 1000; ++pid) {
    for (const char* ext : {".out", ".err"})
      fs::create_symlink(victim, tmp / fmt::format("archpatch-ansible-{}{}", pid, ext));
  }
  const size_t planted = std::distance(fs::directory_iterator(tmp), fs::directory_iterator());
  const fs::path args = dir.path() / "args";
  WriteFile(args, nlohmann::json{{"rules", {kRule}},
                                 {"site_packages", site.string()},
                                 {"_ansible_module_name", "archpatch"},
                                 {"_ansible_check_mode", false}}
                      .dump());
  RunResult r = RunIn(dir.path(), {args.string()}, HomeEnv(dir) + "TMPDIR=" + ShellQuote(tmp.string()) + " ");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out, nullptr, false).value("changed", false), true) << r.out;
  EXPECT_EQ(ReadFile(victim), "precious\n");
  EXPECT_EQ(static_cast<size_t>(std::distance(fs::directory_iterator(tmp), fs::directory_iterator())), planted)
      << "the module created or removed files in $TMPDIR";
}

}  // namespace
}  // namespace archpatch::e2e
