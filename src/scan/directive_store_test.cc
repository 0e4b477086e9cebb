// The directives a later round of package macros evaluates again without reading the file.
#include "scan/directive_store.h"

#include <memory>

#include <gtest/gtest.h>

#include "cuda/gates.h"

namespace archpatch::scan {
namespace {

std::shared_ptr<const cuda::DirectiveScan> Read(std::string_view text) {
  return std::make_shared<cuda::DirectiveScan>(cuda::ReadDirectives(cuda::Tokenize(text), text, "f.hpp"));
}

constexpr std::string_view kDerived =
    "#if defined(PKG_SM90A_ENABLED) && PKG_LEVEL > 2\n"
    "#  define PKG_DERIVED_ENABLED\n"
    "#endif\n"
    "#define PKG_ALIAS PKG_OTHER_ENABLED\n";

TEST(DirectiveStore, KnowsWhichFilesDefineNothing) {
  DirectiveStore store(3);
  store.Keep(0, Read(kDerived), /*defines=*/true);
  store.Keep(1, Read("#if X\nint a;\n#endif\n"), /*defines=*/false);
  EXPECT_EQ(store.Of(0), DirectiveStore::Known::kKept);
  EXPECT_EQ(store.Of(1), DirectiveStore::Known::kNoDefinitions);
  EXPECT_EQ(store.Of(2), DirectiveStore::Known::kUnread);  // the prefilter left its directives unread
  EXPECT_EQ(store.Scan(0).macros.size(), 2u);
}

// The findings round evaluates a file's directives from the store instead of reading them again:
// those of a file that defines nothing are kept too (the rounds of package macros skip it).
TEST(DirectiveStore, KeepsTheDirectivesOfFilesThatDefineNothing) {
  DirectiveStore store(3);
  store.Keep(0, Read(kDerived), /*defines=*/true);
  store.Keep(1, Read("#if X\nint a;\n#endif\n"), /*defines=*/false);
  ASSERT_NE(store.Kept(0), nullptr);
  ASSERT_NE(store.Kept(1), nullptr);
  EXPECT_EQ(store.Kept(1)->branches.size(), 1u);
  EXPECT_EQ(store.Kept(2), nullptr);
  EXPECT_EQ(store.Of(1), DirectiveStore::Known::kNoDefinitions);
}

// The directives of a file's prefix (DirectiveNames::DefinitionsEnd) serve the package-macro
// rounds; the findings round, which reads every branch, does not take them.
TEST(DirectiveStore, APrefixsDirectivesServeTheRoundsAlone) {
  DirectiveStore store(1);
  store.Keep(0, Read(kDerived), /*defines=*/true, /*whole=*/false);
  EXPECT_EQ(store.Of(0), DirectiveStore::Known::kKept);
  EXPECT_EQ(store.Scan(0).macros.size(), 2u);
  EXPECT_EQ(store.Kept(0), nullptr);
  store.Keep(0, Read(kDerived), /*defines=*/true);
  EXPECT_NE(store.Kept(0), nullptr);
}

TEST(DirectiveStore, PastItsLimitAFileIsReadAgain) {
  DirectiveStore store(2, /*limit=*/1000);
  store.Keep(0, Read(kDerived), true);
  std::string big;
  for (int i = 0; i < 100; ++i)
    big += "#if defined(PKG_" + std::to_string(i) + ")\n#define D" + std::to_string(i) + "\n#endif\n";
  store.Keep(1, Read(big), true);
  EXPECT_EQ(store.Of(0), DirectiveStore::Known::kKept);
  EXPECT_EQ(store.Of(1), DirectiveStore::Known::kUnread);
  EXPECT_EQ(store.Kept(1), nullptr);
  EXPECT_LE(store.bytes(), 1000u);
}

TEST(DirectiveStore, MentionsInConditionsNamesAndReplacementsOnly) {
  const auto scan = Read(std::string(kDerived) + "int PKG_CODE_ONLY = 1;  // PKG_COMMENT_ONLY\n");
  EXPECT_TRUE(DirectivesMention(*scan, {"PKG_SM90A_ENABLED"}));  // a condition
  EXPECT_TRUE(DirectivesMention(*scan, {"PKG_LEVEL"}));
  EXPECT_TRUE(DirectivesMention(*scan, {"PKG_DERIVED_ENABLED"}));  // a macro the file defines
  EXPECT_TRUE(DirectivesMention(*scan, {"PKG_OTHER_ENABLED"}));    // a replacement
  EXPECT_FALSE(DirectivesMention(*scan, {"PKG_CODE_ONLY", "PKG_COMMENT_ONLY", "PKG_SM90"}));
}

// What a later round computes from the kept directives is what a scan of the file gives.
TEST(DirectiveStore, DefinitionsFromKeptDirectivesMatchAScanOfTheFile) {
  const std::vector<arch::Arch> arches = {*arch::ParseArch("sm_120"), *arch::ParseArch("sm_90a")};
  cuda::MacroEnv env;
  env.per_arch["PKG_SM90A_ENABLED"] = {{"sm_120", Tri::kFalse}, {"sm_90a", Tri::kTrue}};
  env.defines["PKG_LEVEL"] = "3";
  Result<cuda::CudaGates> scanned = cuda::ScanCudaGates("f.hpp", kDerived, arches, env);
  ASSERT_TRUE(scanned.ok());
  ASSERT_NE(scanned->directives, nullptr);
  const std::vector<cuda::MacroDefinition> again = cuda::DefinitionsOf(*scanned->directives, arches, env, "f.hpp");
  ASSERT_EQ(again.size(), scanned->definitions.size());
  for (size_t i = 0; i < again.size(); ++i) {
    EXPECT_EQ(again[i].name, scanned->definitions[i].name);
    EXPECT_EQ(again[i].where, scanned->definitions[i].where);
  }
  EXPECT_EQ(again[0].where, (std::vector<Tri>{Tri::kFalse, Tri::kTrue}));
}

}  // namespace
}  // namespace archpatch::scan
