#include "rules/loader.h"

#include <link.h>

#include <cstdlib>
#include <cstring>
#include <fstream>

#include <gtest/gtest.h>

namespace archpatch::rules {
namespace {
namespace fs = std::filesystem;

class RulesFolder : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "archpatch_rules_XXXXXX").string();
    dir_ = mkdtemp(tmpl.data());
    Write("caches.yaml", "caches:\n  - name: flashinfer\n    root: x\n  - name: triton\n    root: y\n");
    Write("features.yaml", "features: []\n");
    Write("demo-sm12x.yaml", RuleText("demo-sm12x", "flashinfer"));
    Write("other-rule.yaml", RuleText("other-rule", "nocache"));
    setenv("ARCHPATCH_RULES_DIR", dir_.c_str(), 1);
  }
  void TearDown() override {
    unsetenv("ARCHPATCH_RULES_DIR");
    fs::remove_all(dir_);
  }
  static std::string RuleText(const std::string& id, const std::string& cache) {
    return "id: " + id + "\nsummary: s\ndistribution: demo\ntargets: [sm_120]\ncaches: [" + cache +
           "]\nedits:\n  - file: demo/a.py\n    replace: {old: a, new: b}\n";
  }
  void Write(const std::string& name, const std::string& text) { std::ofstream(dir_ / name) << text; }
  fs::path dir_;
};

TEST_F(RulesFolder, EnvironmentFolderComesFirst) {
  std::vector<fs::path> dirs = RuleDirectories();
  ASSERT_FALSE(dirs.empty());
  EXPECT_EQ(dirs.front(), fs::canonical(dir_));
}

TEST_F(RulesFolder, ListsRuleFilesButNotCachesOrFeatures) {
  std::vector<fs::path> files = RuleFilesIn(dir_);
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].filename(), "demo-sm12x.yaml");
  EXPECT_EQ(files[1].filename(), "other-rule.yaml");
}

TEST_F(RulesFolder, AllRuleFilesTakesEachIdFromTheFirstFolderHoldingIt) {
  const fs::path later = dir_ / "later";
  fs::create_directory(later);
  std::ofstream(later / "demo-sm12x.yaml") << "shadowed\n";
  std::ofstream(later / "third.yaml") << "x\n";
  std::vector<std::string> files;
  for (const fs::path& f : AllRuleFiles({dir_, later})) files.push_back(f.lexically_relative(dir_).string());
  EXPECT_EQ(files, (std::vector<std::string>{"demo-sm12x.yaml", "other-rule.yaml", "later/third.yaml"}));
}

TEST(RuleFileName, CachesAndFeaturesAreNotRules) {
  EXPECT_TRUE(IsRuleFileName("rules/a.yaml"));
  EXPECT_TRUE(IsRuleFileName("a.yml"));
  EXPECT_FALSE(IsRuleFileName("rules/caches.yaml"));
  EXPECT_FALSE(IsRuleFileName("rules/features.yaml"));
  EXPECT_FALSE(IsRuleFileName("rules/known-unsafe.yaml"));
  EXPECT_FALSE(IsRuleFileName("rules/README.md"));
}

TEST_F(RulesFolder, LoadsByIdAndChecksCachesBeside) {
  Result<Rule> rule = LoadRule("demo-sm12x");
  ASSERT_TRUE(rule) << rule.error().str();
  EXPECT_EQ(rule->caches, std::vector<std::string>{"flashinfer"});
  Result<Rule> bad = LoadRule("other-rule");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().str().find("other-rule.yaml:5:10: unknown cache 'nocache' (rules/caches.yaml "
                                   "declares: flashinfer, triton)"),
            std::string::npos)
      << bad.error().str();
}

TEST_F(RulesFolder, UnknownIdSuggestsTheClosest) {
  Result<Rule> rule = LoadRule("demo-sm21x");
  ASSERT_FALSE(rule);
  EXPECT_EQ(rule.error().str(), "no rule 'demo-sm21x', did you mean 'demo-sm12x'?");
}

TEST_F(RulesFolder, LoadsByPath) {
  Result<Rule> rule = LoadRule((dir_ / "demo-sm12x.yaml").string());
  ASSERT_TRUE(rule) << rule.error().str();
  EXPECT_EQ(rule->path, dir_ / "demo-sm12x.yaml");
  Result<Rule> missing = LoadRule("nowhere/x.yaml");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().str(), "cannot read 'nowhere/x.yaml': No such file or directory");
}

// Each folder's caches.yaml is its own: a rule in a folder without one has its caches unchecked,
// one beside a caches.yaml is checked against that file, whatever order the folders come in.
TEST_F(RulesFolder, LoadRuleFilesChecksEachRuleAgainstItsOwnFolder) {
  const fs::path other = dir_ / "other";
  fs::create_directory(other);
  std::ofstream(other / "third.yaml") << RuleText("third", "nocache");
  const std::vector<fs::path> files = {dir_ / "other-rule.yaml", other / "third.yaml", dir_ / "demo-sm12x.yaml",
                                       dir_ / "missing.yaml"};
  const std::vector<Result<Rule>> rules = LoadRuleFiles(files);
  ASSERT_EQ(rules.size(), files.size());
  for (size_t i = 0; i < files.size(); ++i) {
    const Result<Rule> alone = LoadRuleFile(files[i]);
    ASSERT_EQ(bool(rules[i]), bool(alone)) << files[i];
    if (!alone) EXPECT_EQ(rules[i].error().str(), alone.error().str());
    if (alone) EXPECT_EQ(rules[i]->caches, alone->caches);
  }
  EXPECT_FALSE(rules[0]);  // nocache: not in dir_/caches.yaml
  EXPECT_TRUE(rules[1]);   // other/ has no caches.yaml
  EXPECT_TRUE(rules[2]);
  EXPECT_FALSE(rules[3]);
}

// The rules are parsed on several threads; each result stays at its file's place.
TEST_F(RulesFolder, LoadRuleFilesKeepsEachResultAtItsFilesPlace) {
  std::vector<fs::path> files;
  for (int i = 0; i < 40; ++i) {
    const std::string id = "rule-" + std::to_string(i);
    Write(id + ".yaml", i % 7 == 3 ? "id: [broken\n" : RuleText(id, "flashinfer"));
    files.push_back(dir_ / (id + ".yaml"));
  }
  const std::vector<Result<Rule>> rules = LoadRuleFiles(files);
  ASSERT_EQ(rules.size(), files.size());
  for (size_t i = 0; i < files.size(); ++i) {
    if (i % 7 == 3) {
      ASSERT_FALSE(rules[i]) << files[i];
      EXPECT_EQ(rules[i].error().where.file, files[i].string());
    } else {
      ASSERT_TRUE(rules[i]) << rules[i].error().str();
      EXPECT_EQ(rules[i]->id, "rule-" + std::to_string(i));
    }
  }
}

bool LibcryptoLoaded() {
  return dl_iterate_phdr(
             [](dl_phdr_info* info, size_t, void*) { return std::strstr(info->dlpi_name, "libcrypto") ? 1 : 0; },
             nullptr) != 0;
}

// An audit reads every shipped rule; the digest the manifest records is taken only when a plan
// records it, so an audit never loads libcrypto for it (3.5-4.7 ms, most of a small tree's audit).
// In a process of its own, which no other test has made load it.
TEST(ShippedRules, ReadingThemLoadsNoLibcrypto) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        const fs::path dir = fs::path(ARCHPATCH_SOURCE_DIR) / "rules";
        bool all = true;
        for (const Result<Rule>& rule : LoadRuleFiles(RuleFilesIn(dir))) all &= bool(rule);
        const bool before = LibcryptoLoaded();
        const std::string digest = Sha256Of(*LoadRuleFile(RuleFilesIn(dir).front()));
        std::_Exit(all && !before && digest.size() == 64 && LibcryptoLoaded() ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST(ShippedRules, EveryRuleInTheSourceTreeParses) {
  const fs::path dir = fs::path(ARCHPATCH_SOURCE_DIR) / "rules";
  for (const fs::path& file : RuleFilesIn(dir)) {
    Result<Rule> rule = LoadRuleFile(file);
    EXPECT_TRUE(rule) << rule.error().str();
  }
}

}  // namespace
}  // namespace archpatch::rules
