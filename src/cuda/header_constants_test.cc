// Named integer constants through quoted includes, on a small package written to a temporary
// folder (the shape of FlashInfer's common.h constants used by a launcher's check).
#include "cuda/header_constants.h"

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include <fmt/format.h>

#include <gtest/gtest.h>

namespace archpatch::cuda {
namespace {

namespace fs = std::filesystem;

class Headers : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / fmt::format("archpatch_constants_{}", ::getpid());
    fs::remove_all(root_);
    // near.h (depth 1) and deep.h (depth 2, through far.h) both define kSM; the nearer one wins.
    Write("pkg/near.h", "constexpr int kSM = 120;\n");
    Write("pkg/far.h", "#include \"pkg/deep.h\"\nenum { kFar = 7, };\n");
    Write("pkg/deep.h", "const int kSM = 90;\nconstexpr int kDeep = 3;\n");
    Write("pkg/csrc/launcher.cu",
          "#include \"pkg/far.h\"\n#include \"pkg/near.h\"\n"
          "constexpr int32_t kOwn = -5;\n"
          "void run(int sm) { if (sm != kSM) throw 1; }\n");
  }
  void TearDown() override { fs::remove_all(root_); }

  void Write(const std::string& rel, const std::string& text) {
    fs::create_directories((root_ / rel).parent_path());
    std::ofstream(root_ / rel) << text;
  }

  ConstantLookup Lookup(const std::string& rel) {
    path_ = (root_ / rel).string();
    std::ifstream in(path_);
    contents_.assign(std::istreambuf_iterator<char>(in), {});
    return ConstantLookup(path_, ReadFileConstants(path_, contents_, Tokenize(contents_)));
  }

  fs::path root_;
  std::string path_, contents_;
};

TEST_F(Headers, OwnConstantsThenTheNearestIncludeFromTheFoldersAbove) {
  const ConstantLookup lookup = Lookup("pkg/csrc/launcher.cu");
  ASSERT_TRUE(lookup.Find("kOwn"));
  EXPECT_EQ(lookup.Find("kOwn")->value, -5);
  // "pkg/near.h" is found from pkg/csrc/ two folders up, at the package's include root.
  std::optional<NamedConstant> sm = lookup.Find("kSM");
  ASSERT_TRUE(sm);
  EXPECT_EQ(sm->value, 120);
  EXPECT_EQ(sm->line, 1);
  EXPECT_EQ(sm->text, "constexpr int kSM = 120");
  EXPECT_TRUE(sm->file.ends_with("/pkg/near.h")) << sm->file;
  ASSERT_TRUE(lookup.Find("kDeep"));  // two includes down
  EXPECT_EQ(lookup.Find("kDeep")->value, 3);
  ASSERT_TRUE(lookup.Find("kFar"));
  EXPECT_EQ(lookup.Find("kFar")->value, 7);
}

TEST_F(Headers, ANameNoHeaderDefinesIsUnknownAndReadsEachHeaderOnce) {
  const ConstantLookup lookup = Lookup("pkg/csrc/launcher.cu");
  const size_t before = HeadersRead();
  EXPECT_FALSE(lookup.Find("kNowhere"));
  const size_t read = HeadersRead() - before;
  EXPECT_LE(read, 3u);  // near.h, far.h, deep.h (fewer if an earlier test read them)
  for (int i = 0; i < 100; ++i) EXPECT_FALSE(lookup.Find(fmt::format("kMissing{}", i)));
  EXPECT_EQ(HeadersRead() - before, read);
}

}  // namespace
}  // namespace archpatch::cuda
