#include "suggest/output.h"

#include <gtest/gtest.h>

#include "env/digest.h"
#include "env/test_tree.h"
#include "util/input_file.h"

namespace archpatch::suggest {
namespace {

namespace fs = std::filesystem;
using env::testing::TempTree;

std::vector<SuggestedRule> OneRule() {
  SuggestedRule r;
  r.id = "demo-sm_120-suggested";
  r.yaml = "id: demo-sm_120-suggested\n";
  r.fixture = {{"demo/k.cuh", "#if A\n", "#if B\n"}, {"demo-1.0.dist-info/METADATA", "Name: demo\n", "Name: demo\n"}};
  return {r};
}

std::string Read(const fs::path& p) { return *ReadInputFile(p, kMaxSourceBytes); }

TEST(WriteSuggestions, WritesTheRuleAndBothTreesOfItsFixture) {
  TempTree t;
  const fs::path out = t.root() / "out";
  Result<WriteReport> w = WriteSuggestions(OneRule(), out);
  ASSERT_TRUE(w) << w.error().str();
  EXPECT_EQ(w->written.size(), 5u);
  EXPECT_EQ(Read(out / "demo-sm_120-suggested.yaml"), "id: demo-sm_120-suggested\n");
  EXPECT_EQ(Read(out / "tests/demo-sm_120-suggested/before/demo/k.cuh"), "#if A\n");
  EXPECT_EQ(Read(out / "tests/demo-sm_120-suggested/after/demo/k.cuh"), "#if B\n");
}

TEST(WriteSuggestions, LeavesIdenticalFilesAndRefusesAllWhenOneDiffers) {
  TempTree t;
  const fs::path out = t.root() / "out";
  ASSERT_TRUE(WriteSuggestions(OneRule(), out));
  Result<WriteReport> again = WriteSuggestions(OneRule(), out);
  ASSERT_TRUE(again);
  EXPECT_TRUE(again->written.empty());
  EXPECT_EQ(again->unchanged.size(), 5u);

  t.Write("out/tests/demo-sm_120-suggested/before/demo/k.cuh", "mine\n");
  fs::remove(out / "demo-sm_120-suggested.yaml");
  Result<WriteReport> refused = WriteSuggestions(OneRule(), out);
  ASSERT_TRUE(refused);
  ASSERT_EQ(refused->conflicts.size(), 1u);
  EXPECT_NE(refused->conflicts[0].find("before/demo/k.cuh exists and differs"), std::string::npos);
  EXPECT_FALSE(fs::exists(out / "demo-sm_120-suggested.yaml")) << "nothing is written when one file conflicts";
  EXPECT_EQ(Read(out / "tests/demo-sm_120-suggested/before/demo/k.cuh"), "mine\n");
}

TEST(WriteSuggestions, NeverWritesThroughASymlinkOutOfTheFolder) {
  TempTree t;
  const fs::path out = t.root() / "out", elsewhere = t.root() / "elsewhere";
  fs::create_directories(out / "tests");
  fs::create_directories(elsewhere);
  fs::create_directory_symlink(elsewhere, out / "tests" / "demo-sm_120-suggested");
  Result<WriteReport> w = WriteSuggestions(OneRule(), out);
  EXPECT_TRUE(!w || !w->conflicts.empty()) << "a symlink inside the folder is an error or a conflict";
  EXPECT_FALSE(fs::exists(elsewhere / "before"));
}

TEST(WriteSuggestions, RefusesAPathThatWouldLeaveTheFolder) {
  TempTree t;
  std::vector<SuggestedRule> rules = OneRule();
  rules[0].fixture[0].path = "../../escape.cuh";
  Result<WriteReport> w = WriteSuggestions(rules, t.root() / "out");
  ASSERT_FALSE(w);
  EXPECT_NE(w.error().message.find("would leave"), std::string::npos);
  EXPECT_FALSE(fs::exists(t.root() / "out"));
}

TEST(WriteSuggestions, NothingToWriteCreatesNoFolder) {
  TempTree t;
  Result<WriteReport> w = WriteSuggestions({}, t.root() / "out");
  ASSERT_TRUE(w);
  EXPECT_FALSE(fs::exists(t.root() / "out"));
}

}  // namespace
}  // namespace archpatch::suggest
