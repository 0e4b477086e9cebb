// Bad input gets a clear message, a non-zero exit, and not one byte changes (the whole tree is
// compared before and after).
#include <sys/stat.h>

#include "store_e2e.h"

namespace archpatch::e2e {
namespace {

struct BadCase {
  std::string name;
  std::string rule;
  int exit_code;
  std::string message;  // expected in stderr
};

class ApplyBadInput : public testing::TestWithParam<BadCase> {};

TEST_P(ApplyBadInput, ClearMessageAndNothingChanged) {
  StoreEnv env;
  // A symlink out of site-packages, and a binary file, for the cases that need them.
  std::filesystem::create_directories(env.dir() / "outside");
  WriteFile(env.dir() / "outside/secret.py", "secret = 1\n");
  std::filesystem::create_directory_symlink(env.dir() / "outside", env.file("minipkg/outlink"));
  WriteFile(env.dir() / "outside.py", "a\n");
  auto before = Snapshot(env.dir());
  RunResult r = env.Run({"apply", "--rule", Rule(GetParam().rule)});
  EXPECT_EQ(r.exit_code, GetParam().exit_code) << r.err;
  EXPECT_NE(r.err.find(GetParam().message), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(Snapshot(env.dir()), before);
  EXPECT_FALSE(std::filesystem::exists(env.site() / ".archpatch/manifest.json"));
}

INSTANTIATE_TEST_SUITE_P(Store, ApplyBadInput,
                         testing::Values(BadCase{"RuleMatchingNothing", "minipkg-nomatch", 3, "archpatch: error: "},
                                         BadCase{"VersionOutsideRange", "minipkg-old", 3, "1.0.0"},
                                         BadCase{"MissingDistribution", "missing-dist", 3, "not-installed-pkg"},
                                         BadCase{"DotDotPath", "escape", 2, "../outside.py"},
                                         BadCase{"AbsolutePath", "absolute", 2, "/etc/hostname"},
                                         BadCase{"SymlinkOutOfSitePackages", "linked", 3, "minipkg/outlink"},
                                         BadCase{"BinaryFile", "binary", 3, "minipkg/data/kernel.so"}),
                         [](const testing::TestParamInfo<BadCase>& info) { return info.param.name; });

TEST(ApplyBadInput, ReadOnlyFileIsRefusedBeforeAnyWrite) {
  StoreEnv env;
  ASSERT_EQ(chmod(env.file("minipkg/jit.py").c_str(), 0444), 0);
  auto before = Snapshot(env.site());
  RunResult r = env.Run({"apply", "--rule", Rule("minipkg-widen")});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.err, "archpatch: error: minipkg/jit.py: file is read-only; nothing was changed\n");
  EXPECT_EQ(Snapshot(env.site()), before);
}

// The manifest is JSON: a file name that is not UTF-8 cannot be recorded, so it is refused
// before any backup is written (the journal's write had failed on it, backups left behind).
TEST(ApplyBadInput, AFileNameThatIsNotUtf8IsRefusedBeforeAnyWrite) {
  StoreEnv env;
  std::filesystem::rename(env.file("minipkg/jit.py"), env.file("minipkg/j\xffit.py"));
  std::string rule = ReadFile(Rule("minipkg-py"));
  rule.replace(rule.find("file: minipkg/jit.py"), 20, "file: minipkg/j*it.py");
  const std::filesystem::path rule_path = env.dir() / "minipkg-py.yaml";
  WriteFile(rule_path, rule);
  auto before = Snapshot(env.dir());
  RunResult r = env.Run({"apply", "--rule", rule_path.string()});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_EQ(r.err,
            "archpatch: error: minipkg/j\xffit.py: the path is not UTF-8 and archpatch's manifest (JSON) cannot "
            "record it; rename the file or edit it by hand; nothing was changed\n");
  EXPECT_EQ(Snapshot(env.dir()), before);
  EXPECT_FALSE(std::filesystem::exists(env.site() / ".archpatch"));
}

TEST(ApplyBadInput, ReadOnlyDirectoryIsRefusedBeforeAnyWrite) {
  StoreEnv env;
  ASSERT_EQ(chmod(env.file("minipkg/include").c_str(), 0555), 0);
  auto before = Snapshot(env.site());
  RunResult r = env.Run({"apply", "--rule", Rule("minipkg-widen")});
  chmod(env.file("minipkg/include").c_str(), 0755);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.err,
            "archpatch: error: minipkg/include/allreduce.cuh: its directory is read-only; nothing was changed\n");
  EXPECT_EQ(Snapshot(env.site()), before);
}

TEST(ApplyBadInput, HugeFileIsRefused) {
  StoreEnv env;
  WriteFile(env.file("minipkg/jit.py"), ReadFile(env.file("minipkg/jit.py")) + std::string(17 << 20, '#'));
  auto before = Snapshot(env.site());
  RunResult r = env.Run({"apply", "--rule", Rule("minipkg-widen")});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("minipkg/jit.py"), std::string::npos) << r.err;
  EXPECT_EQ(Snapshot(env.site()), before);
}

TEST(ApplyBadInput, NoRuleIsAUsageError) {
  StoreEnv env;
  RunResult r = env.Run({"apply"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "archpatch: error: nothing to apply: give --rule ID|PATH or --plan FILE\n");
}

TEST(ApplyBadInput, TwoEnvironmentsAreRefused) {
  RunResult r = RunArchpatch({"apply", "--rule", Rule("minipkg-widen"), "--root", "/a", "--site-packages", "/b"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("cannot be used together"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace archpatch::e2e
