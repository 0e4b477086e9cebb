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

// A header is lexed only for a name it may define: one written `NAME = digit` in its bytes, or any
// name when a comment, a line break or a splice hides the name or the value from the skim.
TEST_F(Headers, AHeaderIsLexedOnlyForANameItMayDefine) {
  Write("lazy/plain.h", "constexpr int kPlain = 1;\nint counter = 5; bool same = a == 7;\n");
  Write("lazy/noted.h", "#include \"lazy/broken.h\"\nconstexpr int kNoted /* the SM */ = 2;\n");
  Write("lazy/broken.h", "enum Arch {\n  kBroken // the next line holds the value\n  = 3,\n};\n");
  Write("lazy/src/run.cu", "#include \"lazy/plain.h\"\n#include \"lazy/noted.h\"\nvoid run() {}\n");
  const ConstantLookup lookup = Lookup("lazy/src/run.cu");
  const size_t before = HeadersLexed();
  ASSERT_TRUE(lookup.Find("kPlain"));  // the first header of the closure
  EXPECT_EQ(HeadersLexed() - before, 1u);
  EXPECT_FALSE(lookup.Find("kNowhere"));  // plain.h names no kNowhere; the others may hide one
  EXPECT_EQ(HeadersLexed() - before, 3u);
  ASSERT_TRUE(lookup.Find("kNoted"));
  EXPECT_EQ(lookup.Find("kNoted")->value, 2);
  ASSERT_TRUE(lookup.Find("kBroken"));
  EXPECT_EQ(lookup.Find("kBroken")->value, 3);
  EXPECT_EQ(HeadersLexed() - before, 3u);  // each lexed once
}

// Every constant the lexer reads in a header is found through the closure, whatever stands
// between its name, its `=` and its value (one header per form: any form the skim cannot read
// makes its header lexed for every name).
TEST_F(Headers, TheSkimMissesNoConstantTheLexerReads) {
  const std::vector<std::string> forms = {
      "constexpr int kSpaced   =   -  4;\n",        "constexpr int kHex = 0x64;\n",
      "constexpr int kCommented/**/= 5;\n",         "constexpr int kAfter = /* value */ 6;\n",
      "constexpr int kSpliced = \\\n  7;\n",        "constexpr int kBroken\n  = 9;\n",
      "constexpr int kLined  // a note\n  = 12;\n", "enum { kFirst = 10, kSecond = 11 };\n",
  };
  std::string run;
  for (size_t k = 0; k < forms.size(); ++k) {
    Write(fmt::format("skim/h{}.h", k), forms[k]);
    run += fmt::format("#include \"skim/h{}.h\"\n", k);
  }
  Write("skim/src/run.cu", run);
  const ConstantLookup lookup = Lookup("skim/src/run.cu");
  size_t checked = 0;
  for (const std::string& form : forms) {
    for (const auto& [name, constant] : ReadFileConstants("h.h", form, Tokenize(form)).constants) {
      std::optional<NamedConstant> found = lookup.Find(name);
      ASSERT_TRUE(found) << name;
      EXPECT_EQ(found->value, constant.value) << name;
      ++checked;
    }
  }
  EXPECT_EQ(checked, forms.size() + 1);
}

}  // namespace
}  // namespace archpatch::cuda
