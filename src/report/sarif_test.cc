// The SARIF document against the 2.1.0 structure (the properties the schema requires, locations,
// rule ids and indices); tests/sarif also validates it with a JSON-schema validator.
#include "report/sarif.h"

#include <set>

#include <gtest/gtest.h>

namespace archpatch::report {
namespace {

Finding At(std::string file, int line, std::string text, std::string klass) {
  Finding f;
  f.file = std::move(file);
  f.line = line;
  f.column = 5;
  f.kind = gate::Kind::kCudaGate;
  f.text = std::move(text);
  f.exclusion = gate::Classification{gate::ExclusionClassFromName(klass), "", std::nullopt};
  return f;
}

struct Doc {
  std::vector<Finding> findings = {At("pkg/config.hpp", 38, "defined(__CUDA_ARCH_FEAT_SM90_ALL)", "other-arch"),
                                   At("pkg/mma.hpp", 51, "defined(SM90A_ENABLED)", "refusal"),
                                   At("/abs/dir with space/k.cu", 7, "__CUDA_ARCH__ >= 900", "fast-path")};
  std::vector<Group> groups;
  nlohmann::ordered_json sarif;
  Doc() {
    Group hw{"G1",
             0,
             {1},
             gate::ExclusionClass::kHardwareExclusive,
             "needs wgmma",
             gate::WidenSafety::kUnsafe,
             {"it enables 1 block"},
             {"wgmma"},
             {},
             "pkg",
             "file config.hpp"};
    Group fast{"G2",
               2,
               {},
               gate::ExclusionClass::kFastPath,
               "generic path",
               gate::WidenSafety::kSafe,
               {"no instruction"},
               {},
               {"rule-x"},
               "abs",
               "kernel k"};
    groups = {hw, fast};
    sarif = ToSarif(groups, findings, {"sm_120", "0.1.0", "/work/tree"});
  }
};

TEST(Sarif, TopLevelAndRunHaveTheRequiredProperties) {
  Doc d;
  EXPECT_EQ(d.sarif["version"], "2.1.0");
  ASSERT_TRUE(d.sarif["runs"].is_array());
  ASSERT_EQ(d.sarif["runs"].size(), 1u);
  const auto& run = d.sarif["runs"][0];
  EXPECT_EQ(run["tool"]["driver"]["name"], "archpatch");
  EXPECT_EQ(run["originalUriBaseIds"]["SRCROOT"]["uri"], "file:///work/tree/");
  ASSERT_EQ(run["results"].size(), 2u);
}

TEST(Sarif, OneRulePerClassAndEveryResultNamesOneByIdAndIndex) {
  Doc d;
  const auto& run = d.sarif["runs"][0];
  const auto& rules = run["tool"]["driver"]["rules"];
  std::set<std::string> ids;
  for (const auto& r : rules) {
    ids.insert(r["id"].get<std::string>());
    EXPECT_TRUE(r["shortDescription"]["text"].is_string());
  }
  EXPECT_EQ(ids,
            (std::set<std::string>{"refusal", "empty", "fast-path", "hardware-exclusive", "legacy", "other-arch"}));
  for (const auto& result : run["results"]) {
    const int index = result["ruleIndex"];
    EXPECT_EQ(rules[index]["id"], result["ruleId"]);
    EXPECT_TRUE(result["message"]["text"].is_string());
    const std::set<std::string> levels = {"none", "note", "warning", "error"};
    EXPECT_TRUE(levels.count(result["level"].get<std::string>())) << result["level"];
  }
}

TEST(Sarif, RootIsTheLocationAndPlacesAreRelatedLocations) {
  Doc d;
  const auto& hw = d.sarif["runs"][0]["results"][0];
  EXPECT_EQ(hw["ruleId"], "hardware-exclusive");
  const auto& loc = hw["locations"][0]["physicalLocation"];
  EXPECT_EQ(loc["artifactLocation"]["uri"], "pkg/config.hpp");
  EXPECT_EQ(loc["artifactLocation"]["uriBaseId"], "SRCROOT");
  EXPECT_EQ(loc["region"]["startLine"], 38);
  EXPECT_EQ(loc["region"]["startColumn"], 5);
  ASSERT_EQ(hw["relatedLocations"].size(), 1u);
  EXPECT_EQ(hw["relatedLocations"][0]["id"], 1);
  EXPECT_EQ(hw["relatedLocations"][0]["physicalLocation"]["region"]["startLine"], 51);
  const auto& fast = d.sarif["runs"][0]["results"][1];
  EXPECT_FALSE(fast.contains("relatedLocations"));
  EXPECT_EQ(fast["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], "file:///abs/dir%20with%20space/k.cu");
  EXPECT_NE(fast["message"]["text"].get<std::string>().find("rule-x"), std::string::npos);
}

}  // namespace
}  // namespace archpatch::report
