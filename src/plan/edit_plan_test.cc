#include "plan/edit_plan.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <unistd.h>

#include <gtest/gtest.h>

namespace archpatch::plan {
namespace {

FilePlan OneFile() {
  FilePlan f;
  f.path = "demo/jit.py";
  f.sha256_before = "aa";
  f.sha256_after = "bb";
  f.edits.push_back({13, 20, "[9, 10]", "[9, 10, 12]", 1, 14, 0, "python-gate", "widen"});
  return f;
}

TEST(ApplyEdits, ReplacesExactlyTheRanges) {
  const std::string original = "SUPPORTED  = [9, 10]\nrest\n";
  FilePlan f = OneFile();
  EXPECT_EQ(ApplyEdits(original, f), "SUPPORTED  = [9, 10, 12]\nrest\n");
  f.edits[0].before = "[9, 11]";
  EXPECT_THROW(ApplyEdits(original, f), Fatal);  // the file is not what was planned against
}

TEST(ApplyEdits, KeepsBomCrlfAndMissingFinalNewline) {
  const std::string original = "\xEF\xBB\xBFx = [9]\r\ny = 1";
  FilePlan f;
  f.edits.push_back({7, 10, "[9]", "[9, 12]", 1, 5, 0, "python-gate", ""});
  EXPECT_EQ(ApplyEdits(original, f), "\xEF\xBB\xBFx = [9, 12]\r\ny = 1");
}

TEST(PlanJson, RoundTrips) {
  EditPlan plan;
  plan.root = "/site";
  RulePlan rule;
  rule.rule_id = "demo";
  rule.rule_sha256 = "cc";
  rule.rule_path = "rules/demo.yaml";
  rule.distribution = "demo-pkg";
  rule.version = "0.3.1";
  rule.root = "/site";
  rule.targets = {"sm_120"};
  rule.caches = {"flashinfer"};
  rule.notes = {"edit 1: ..."};
  rule.files = {OneFile()};
  plan.rules = {rule};
  const nlohmann::ordered_json json = ToJson(plan);
  EXPECT_EQ(json["format"], "archpatch-plan");
  EXPECT_EQ(json["satisfied"], false);
  EXPECT_EQ(json["rules"][0]["files"][0]["edits"][0]["after"], "[9, 10, 12]");
  Result<EditPlan> back = PlanFromJson(nlohmann::json::parse(json.dump()));
  ASSERT_TRUE(back) << back.error().str();
  EXPECT_EQ(ToJson(*back), json);
}

TEST(PlanJson, NamesTheBadField) {
  EditPlan plan;
  plan.rules.push_back(RulePlan{});
  plan.rules[0].files = {OneFile()};
  nlohmann::json json = nlohmann::json::parse(ToJson(plan).dump());
  json["rules"][0]["files"][0]["edits"][0].erase("after");
  Result<EditPlan> back = PlanFromJson(json);
  ASSERT_FALSE(back);
  EXPECT_EQ(back.error().str(), "plan: plan.rules[0].files[0].edits[0].after must be a string");
  json = nlohmann::json::parse(ToJson(plan).dump());
  json["rules"][0]["files"][0]["edits"][0]["end"] = 99;
  back = PlanFromJson(json);
  ASSERT_FALSE(back);
  EXPECT_EQ(back.error().str(), "plan: plan.rules[0].files[0].edits[0]: [begin, end) does not cover 'before'");
  EXPECT_FALSE(PlanFromJson(nlohmann::json::parse(R"({"format": "other", "format_version": 1})")));
}

TEST(UnifiedDiff, LooksLikeDiffU) {
  std::string before, after;
  for (int i = 1; i <= 12; ++i) before += "line " + std::to_string(i) + "\n";
  after = before;
  after.replace(after.find("line 6\n"), 7, "line six\n");
  EXPECT_EQ(UnifiedDiff("pkg/a.py", before, after),
            "--- a/pkg/a.py\n+++ b/pkg/a.py\n@@ -3,7 +3,7 @@\n line 3\n line 4\n line 5\n-line 6\n+line six\n"
            " line 7\n line 8\n line 9\n");
  EXPECT_EQ(UnifiedDiff("pkg/a.py", before, before), "");
}

TEST(UnifiedDiff, SeparateHunksAndNoFinalNewline) {
  std::string before, after;
  for (int i = 1; i <= 20; ++i) before += "l" + std::to_string(i) + "\n";
  after = before;
  after.replace(after.find("l2\n"), 3, "L2\n");
  after.replace(after.find("l19\n"), 4, "L19\n");
  const std::string diff = UnifiedDiff("f", before, after);
  EXPECT_NE(diff.find("@@ -1,5 +1,5 @@\n l1\n-l2\n+L2\n"), std::string::npos) << diff;
  EXPECT_NE(diff.find("@@ -16,5 +16,5 @@\n l16\n l17\n l18\n-l19\n+L19\n l20\n"), std::string::npos) << diff;
  EXPECT_EQ(
      UnifiedDiff("f", "a\nb", "a\nc"),
      "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n");
  EXPECT_EQ(UnifiedDiff("f", "", "x\n"), "--- a/f\n+++ b/f\n@@ -0,0 +1 @@\n+x\n");
}

// A module of 9,000 lines with changes near both ends and lines added and removed between: the
// middle is past the LCS table's budget, and each change still gets a hunk of its own (it used to
// be one replacement of all 8,990 lines). GNU patch, when present, must rebuild `after` from it.
TEST(UnifiedDiff, ALongFileWithChangesFarApartGetsOneSmallHunkPerChange) {
  std::string before, after;
  for (int i = 1; i <= 9000; ++i) {
    const std::string line = "    value_" + std::to_string(i) + " = supported([9, 10])\n";
    before += line;
    if (i == 5 || i == 8995) {
      after += "    value_" + std::to_string(i) + " = supported([9, 10, 12])\n";
    } else if (i == 4000) {
      after += line + "    inserted = True\n";
    } else if (i != 6000) {
      after += line;
    }
  }
  const std::string diff = UnifiedDiff("pkg/big.py", before, after);
  size_t hunks = 0;
  for (size_t at = diff.find("\n@@ "); at != std::string::npos; at = diff.find("\n@@ ", at + 1)) ++hunks;
  EXPECT_EQ(hunks, 4u) << diff.substr(0, 400);
  EXPECT_LT(diff.size(), 2000u);
  EXPECT_NE(diff.find("@@ -2,7 +2,7 @@\n"), std::string::npos) << diff.substr(0, 400);
  EXPECT_NE(diff.find("@@ -3998,6 +3998,7 @@\n"), std::string::npos) << diff;
  EXPECT_NE(diff.find("+    inserted = True\n"), std::string::npos);
  EXPECT_NE(diff.find("-    value_6000 = supported([9, 10])\n"), std::string::npos);
  if (std::system("command -v patch > /dev/null 2>&1") != 0) GTEST_SKIP() << "no GNU patch to apply the diff";
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("diff-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "big.py") << before;
  std::ofstream(dir / "big.diff") << diff;
  ASSERT_EQ(std::system(("cd " + dir.string() + " && patch -s big.py big.diff").c_str()), 0);
  std::ifstream in(dir / "big.py");
  const std::string patched((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::filesystem::remove_all(dir);
  EXPECT_EQ(patched, after);
}

}  // namespace
}  // namespace archpatch::plan
