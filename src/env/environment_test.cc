#include "env/environment.h"

#include <gtest/gtest.h>

#include "env/digest.h"
#include "env/test_tree.h"

namespace archpatch::env {
namespace {

using testing::TempTree;

// A site-packages with one distribution whose RECORD lists a module, a quoted path with a comma,
// a script outside site-packages (../../bin) and RECORD itself without a hash.
void WriteDistribution(const TempTree& tree) {
  const std::string module = "SUPPORTED = [9, 10]\n";
  const std::string odd = "x = 1\n";
  tree.Write("site/demo_pkg/jit.py", module);
  tree.Write("site/demo_pkg/a,b.py", odd);
  tree.Write("bin/demo", "#!/bin/sh\n");
  tree.Write("site/Demo_Pkg-0.3.1.dist-info/METADATA",
             "Metadata-Version: 2.1\nName: Demo_Pkg\nVersion: 0.3.1\n\nName: not-this\n");
  tree.Write("site/Demo_Pkg-0.3.1.dist-info/INSTALLER", "uv\n");
  tree.Write("site/Demo_Pkg-0.3.1.dist-info/RECORD", "demo_pkg/jit.py,sha256=" + Sha256UrlsafeB64(module) +
                                                         ",20\n"
                                                         "\"demo_pkg/a,b.py\",sha256=" +
                                                         Sha256UrlsafeB64(odd) +
                                                         ",6\r\n"
                                                         "../bin/demo,sha256=" +
                                                         Sha256UrlsafeB64("#!/bin/sh\n") +
                                                         ",10\n"
                                                         "demo_pkg/gone.py,sha256=" +
                                                         Sha256UrlsafeB64("") +
                                                         ",0\n"
                                                         "Demo_Pkg-0.3.1.dist-info/RECORD,,\n");
}

TEST(Environment, NormalisesNamesAsPipDoes) {
  EXPECT_EQ(NormalizeName("FlashInfer_Python"), "flashinfer-python");
  EXPECT_EQ(NormalizeName("a.-_b"), "a-b");
  EXPECT_EQ(NormalizeName("SGLang"), "sglang");
}

TEST(Environment, ReadsDistInfoAndFindsByAnySpelling) {
  TempTree tree;
  WriteDistribution(tree);
  Result<Environment> env = LoadSitePackages(tree.root() / "site");
  ASSERT_TRUE(env) << env.error().str();
  ASSERT_EQ(env->distributions.size(), 1u);
  const Distribution* dist = env->Find("demo.pkg");
  ASSERT_NE(dist, nullptr);
  EXPECT_EQ(dist->name, "Demo_Pkg");
  EXPECT_EQ(dist->version, "0.3.1");
  EXPECT_EQ(dist->installer, "uv");
  ASSERT_EQ(dist->record.size(), 5u);
  EXPECT_EQ(dist->record[1].path, "demo_pkg/a,b.py");
  EXPECT_EQ(dist->record[0].size, 20u);
  EXPECT_EQ(env->Find("other"), nullptr);
}

// An audit finds the environment without its distributions (a folder that cannot be listed is
// still refused at once) and checks their RECORDs later, one at a time: the rows are those of the
// environment read whole, in its distributions' order (by normalized name, not by folder: "Zed"
// sorts before "alpha" as a folder).
TEST(Environment, RecordsCheckedOneAtATimeGiveTheWholeEnvironmentsRows) {
  TempTree tree;
  WriteDistribution(tree);
  tree.Write("site/Zed-1.0.dist-info/METADATA", "Name: Zed\nVersion: 1.0\n");
  tree.Write("site/Zed-1.0.dist-info/RECORD", "zed/gone.py,sha256=" + Sha256UrlsafeB64("") + ",0\n");
  tree.Write("site/alpha-2.0.dist-info/METADATA", "Name: alpha\nVersion: 2.0\n");
  tree.Write("site/alpha-2.0.dist-info/RECORD", "alpha/gone.py,sha256=" + Sha256UrlsafeB64("") + ",0\n");
  tree.Write("site/demo_pkg/jit.py", "SUPPORTED = [9, 10, 12]\n");
  Result<Environment> now = LoadSitePackages(tree.root() / "site");
  Result<Environment> later = LoadSitePackages(tree.root() / "site", false, /*read_distributions=*/false);
  ASSERT_TRUE(now && later);
  EXPECT_TRUE(later->distributions.empty());
  EXPECT_EQ(later->search_paths, now->search_paths);
  const auto sources = [](std::string_view path) { return path.ends_with(".py"); };
  const std::vector<RecordMismatch> whole = RecordMismatches(*now, sources);
  Result<std::vector<RecordMismatch>> streamed = CheckRecords(*later, sources);
  ASSERT_TRUE(streamed) << streamed.error().str();
  std::vector<std::string> rows;
  for (const RecordMismatch& m : *streamed)
    rows.push_back(m.distribution + " " + m.file.filename().string() + " " + m.state);
  EXPECT_EQ(rows, (std::vector<std::string>{"alpha gone.py missing", "demo-pkg gone.py missing",
                                            "demo-pkg jit.py modified", "zed gone.py missing"}));
  ASSERT_EQ(streamed->size(), whole.size());
  for (size_t i = 0; i < whole.size(); ++i) {
    EXPECT_EQ((*streamed)[i].distribution, whole[i].distribution);
    EXPECT_EQ((*streamed)[i].file, whole[i].file);
  }
  EXPECT_FALSE(LoadSitePackages(tree.root() / "missing", false, /*read_distributions=*/false));
}

TEST(Environment, VerifiesFilesAgainstRecord) {
  TempTree tree;
  WriteDistribution(tree);
  Result<Environment> env = LoadSitePackages(tree.root() / "site");
  ASSERT_TRUE(env);
  const Distribution& dist = env->distributions[0];
  EXPECT_EQ(VerifyFile(dist, dist.record[0]).state, FileState::kOk);
  EXPECT_EQ(VerifyFile(dist, dist.record[2]).state, FileState::kOk);  // ../bin/demo
  EXPECT_EQ(VerifyFile(dist, dist.record[4]).state, FileState::kUnchecked);
  tree.Write("site/demo_pkg/jit.py", "SUPPORTED = [9, 10, 12]\n");
  std::vector<FileCheck> changed = ModifiedFiles(dist);
  ASSERT_EQ(changed.size(), 2u);
  EXPECT_EQ(changed[0].path, "demo_pkg/gone.py");
  EXPECT_EQ(changed[0].state, FileState::kMissing);
  EXPECT_EQ(changed[1].path, "demo_pkg/jit.py");
  EXPECT_EQ(changed[1].state, FileState::kModified);
  // Among the paths a filter accepts only.
  std::vector<FileCheck> gone = ModifiedFiles(dist, [](std::string_view p) { return p.ends_with("gone.py"); });
  ASSERT_EQ(gone.size(), 1u);
  EXPECT_EQ(gone[0].path, "demo_pkg/gone.py");
}

// A file bigger than the 1 MiB the digest reads at a time hashes as its bytes do in memory.
TEST(Environment, FileDigestIsTheDigestOfItsBytes) {
  TempTree tree;
  std::string big(3 * (1 << 20) + 17, '\0');
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>(i * 131 % 251);
  tree.Write("libbig.so", big);
  Result<std::string> hashed = Sha256UrlsafeB64OfFile(tree.root() / "libbig.so");
  ASSERT_TRUE(hashed.ok());
  EXPECT_EQ(*hashed, Sha256UrlsafeB64(big));
  EXPECT_FALSE(Sha256UrlsafeB64OfFile(tree.root() / "absent").ok());
}

TEST(Environment, RecordErrorsCarryTheLine) {
  Result<std::vector<RecordEntry>> bad = ParseRecord("a.py,sha256=x,1\n\"b.py,,\n", "RECORD");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().str(), "RECORD:2: unterminated quoted field");
  bad = ParseRecord("a.py,sha256=x,big\n", "RECORD");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().str(), "RECORD:1: size 'big' is not a number");
}

TEST(Environment, AsksARealInterpreterForSitePackages) {
  Result<std::vector<std::filesystem::path>> dirs = AskPythonForSitePackages("python3");
  if (!dirs) GTEST_SKIP() << "no python3: " << dirs.error().str();
  ASSERT_FALSE(dirs->empty());
  EXPECT_NE(dirs->front().string().find("-packages"), std::string::npos) << dirs->front();
}

TEST(Environment, ReportsAnInterpreterThatCannotRun) {
  Result<std::vector<std::filesystem::path>> dirs = AskPythonForSitePackages("/nonexistent/python3");
  ASSERT_FALSE(dirs);
  EXPECT_EQ(dirs.error().message, "cannot run '/nonexistent/python3': No such file or directory");
  TempTree tree;
  std::filesystem::path fake = tree.Write("python", "#!/bin/sh\necho 'broken' >&2\nexit 3\n");
  std::filesystem::permissions(fake, std::filesystem::perms::owner_all);
  dirs = AskPythonForSitePackages(fake.string());
  ASSERT_FALSE(dirs);
  EXPECT_NE(dirs.error().message.find("(exit 3): broken"), std::string::npos) << dirs.error().message;
}

// --python: the interpreter's purelib is site-packages, and distributions in a different platlib
// (Fedora's lib64) are found too, each with its own root.
TEST(Environment, DiscoversPurelibAndPlatlibFromTheInterpreter) {
  TempTree tree;
  WriteDistribution(tree);
  tree.Write("lib64/native_pkg-1.0.dist-info/METADATA", "Name: native_pkg\nVersion: 1.0\n");
  tree.Write("lib64/native_pkg-1.0.dist-info/RECORD", "native_pkg/gone.py,sha256=" + Sha256UrlsafeB64("") + ",0\n");
  const std::filesystem::path fake =
      tree.Write("python", "#!/bin/sh\nprintf '{\"purelib\": \"%s\", \"platlib\": \"%s\"}\\n' '" +
                               (tree.root() / "site").string() + "' '" + (tree.root() / "lib64").string() + "'\n");
  std::filesystem::permissions(fake, std::filesystem::perms::owner_all);
  Result<Environment> env = Discover({fake.string(), "", ""});
  ASSERT_TRUE(env) << env.error().str();
  EXPECT_EQ(env->python, fake.string());
  EXPECT_EQ(env->site_packages, std::filesystem::canonical(tree.root() / "site"));
  ASSERT_EQ(env->search_paths.size(), 2u);
  ASSERT_NE(env->Find("native-pkg"), nullptr);
  EXPECT_EQ(env->Find("native-pkg")->root, std::filesystem::canonical(tree.root() / "lib64"));
  EXPECT_NE(env->Find("demo-pkg"), nullptr);
  // An audit's environment, its distributions left to the RECORD check: platlib's are checked too.
  Result<Environment> later = Discover({fake.string(), "", "", /*read_distributions=*/false});
  ASSERT_TRUE(later) << later.error().str();
  EXPECT_TRUE(later->distributions.empty());
  EXPECT_EQ(later->search_paths, env->search_paths);
  Result<std::vector<RecordMismatch>> rows = CheckRecords(*later, [](std::string_view) { return true; });
  ASSERT_TRUE(rows) << rows.error().str();
  std::vector<std::string> names;
  for (const RecordMismatch& m : *rows) names.push_back(m.distribution + " " + m.file.filename().string());
  EXPECT_EQ(names, (std::vector<std::string>{"demo-pkg gone.py", "native-pkg gone.py"}));
}

TEST(Environment, RefusesTwoEnvironmentOptions) {
  Result<Environment> env = Discover({"python3", "/tmp", ""});
  ASSERT_FALSE(env);
  EXPECT_EQ(env.error().message, "give only one of --python, --site-packages and --root");
}

TEST(Digest, KnownSha256) {
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  // The RECORD form of sha256(""), as pip writes it.
  EXPECT_EQ(Sha256UrlsafeB64(""), "47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU");
}

}  // namespace
}  // namespace archpatch::env
