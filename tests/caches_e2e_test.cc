// `caches clear` and apply's cache clearing never delete outside a cache root (issue 16, item 2):
// a symlinked root is refused, not followed; a second name for the home folder is still the home
// folder; a symlink inside a cache is removed, its target kept.
#include <nlohmann/json.hpp>

#include "e2e.h"

namespace archpatch::e2e {
namespace {

namespace fs = std::filesystem;

std::string Quoted(const fs::path& p) { return ShellQuote(p.string()); }

TEST(CacheSafetyE2e, ASymlinkedCacheRootIsRefusedAndItsTargetKept) {
  TempDir dir;
  const fs::path home = dir.path() / "home", somedir = dir.path() / "somedir";
  WriteFile(somedir / "keep.txt", "precious\n");
  fs::create_directories(home / ".triton");
  fs::create_directory_symlink(somedir, home / ".triton/cache");
  RunResult r = RunArchpatch({"caches", "clear", "triton"}, "HOME=" + Quoted(home) + " ");
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.out.find("is a symlink; archpatch never follows one"), std::string::npos) << r.out;
  EXPECT_EQ(ReadFile(somedir / "keep.txt"), "precious\n");
  EXPECT_TRUE(fs::is_symlink(home / ".triton/cache"));
}

TEST(CacheSafetyE2e, TheHomeFolderUnderAnotherNameIsRefused) {
  TempDir dir;
  const fs::path home = dir.path() / "home", link = dir.path() / "homelink";
  WriteFile(home / "notes.txt", "my files\n");
  fs::create_directory_symlink(home, link);
  RunResult r =
      RunArchpatch({"caches", "clear", "triton"}, "HOME=" + Quoted(link) + " TRITON_CACHE_DIR=" + Quoted(home) + " ");
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.out.find("it is the home folder or contains it"), std::string::npos) << r.out;
  EXPECT_EQ(ReadFile(home / "notes.txt"), "my files\n");
  // The other way round: the cache named through a link to the home folder.
  r = RunArchpatch({"caches", "clear", "triton"}, "HOME=" + Quoted(home) + " TRITON_CACHE_DIR=" + Quoted(link) + " ");
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_EQ(ReadFile(home / "notes.txt"), "my files\n");
}

TEST(CacheSafetyE2e, ASymlinkInsideACacheIsRemovedItsTargetKept) {
  TempDir dir;
  const fs::path home = dir.path() / "home", cache = home / ".triton/cache", outside = dir.path() / "outside";
  WriteFile(outside / "keep.txt", "precious\n");
  WriteFile(cache / "ab/kernel.cubin", "cubin");
  fs::create_directory_symlink(outside, cache / "ab/escape");
  fs::create_symlink(outside / "keep.txt", cache / "file-link");
  RunResult r = RunArchpatch({"caches", "clear", "triton", "--json"}, "HOME=" + Quoted(home) + " ");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
  EXPECT_EQ(j["caches"][0]["files"], 3) << r.out;
  EXPECT_EQ(ReadFile(outside / "keep.txt"), "precious\n");
  EXPECT_TRUE(fs::is_directory(cache));
  EXPECT_TRUE(fs::is_empty(cache));
}

}  // namespace
}  // namespace archpatch::e2e
