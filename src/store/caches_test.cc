#include "store/caches.h"

#include <fstream>
#include <map>

#include <gtest/gtest.h>

namespace archpatch::store {
namespace {

EnvLookup Env(std::map<std::string, std::string> vars) {
  return [vars](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

TEST(ExpandRoot, DefaultsNestAndVariablesWin) {
  EnvLookup home_only = Env({{"HOME", "/home/u"}});
  EXPECT_EQ(*ExpandRoot("${FLASHINFER_WORKSPACE_BASE:-$HOME}/.cache/flashinfer", home_only),
            "/home/u/.cache/flashinfer");
  EXPECT_EQ(*ExpandRoot("${FLASHINFER_WORKSPACE_BASE:-$HOME}/.cache/flashinfer",
                        Env({{"HOME", "/home/u"}, {"FLASHINFER_WORKSPACE_BASE", "/ws"}})),
            "/ws/.cache/flashinfer");
  EXPECT_EQ(*ExpandRoot("${VLLM_CACHE_ROOT:-${XDG_CACHE_HOME:-$HOME/.cache}/vllm}", home_only), "/home/u/.cache/vllm");
  EXPECT_EQ(*ExpandRoot("~/.triton/cache", home_only), "/home/u/.triton/cache");
  Result<fs::path> unset = ExpandRoot("$NOPE/x", home_only);
  ASSERT_FALSE(unset);
  EXPECT_EQ(unset.error().str(), "cache root '$NOPE/x' needs $NOPE, which is not set");
}

TEST(CheckCacheRoot, RefusesRootHomeAndItsAncestors) {
  EnvLookup env = Env({{"HOME", "/home/u"}});
  EXPECT_EQ(CheckCacheRoot("/", env).error().str(), "refusing to clear '/'");
  EXPECT_FALSE(CheckCacheRoot("/home/u", env));
  EXPECT_FALSE(CheckCacheRoot("/home/u/", env));
  EXPECT_FALSE(CheckCacheRoot("/home", env));
  EXPECT_FALSE(CheckCacheRoot("relative/cache", env));
  EXPECT_TRUE(CheckCacheRoot("/home/u/.cache/flashinfer", env));
}

TEST(ParseCacheKinds, TheShippedFileParsesAndNamesTheKnownCaches) {
  Result<std::vector<CacheKind>> kinds = LoadCacheKinds(fs::path(ARCHPATCH_SOURCE_DIR) / "rules/caches.yaml");
  ASSERT_TRUE(kinds) << kinds.error().str();
  for (const char* name : {"flashinfer", "torch_extensions", "triton", "vllm"}) {
    EXPECT_NE(FindCacheKind(*kinds, name), nullptr) << name;
  }
  EXPECT_TRUE(FindCacheKind(*kinds, "flashinfer")->ninja);
}

TEST(ParseCacheKinds, ASecondDocumentIsRefused) {
  Result<std::vector<CacheKind>> kinds =
      ParseCacheKinds("caches:\n  - {name: a, root: /x}\n---\ncaches:\n  - {name: b, root: /y}\n", "caches.yaml");
  ASSERT_FALSE(kinds);
  EXPECT_EQ(kinds.error().str(), "caches.yaml:3:1: a second YAML document; a file holds one");
}

// yaml-cpp's as<std::string>() throws on a list or map where a string belongs.
TEST(ParseCacheKinds, ListsAndMapsWhereStringsBelongAreErrorsWithTheirPlace) {
  Result<std::vector<CacheKind>> kinds =
      ParseCacheKinds("caches:\n  - name: x\n    root: /x\n    used_by: [a, {b: c}]\n", "caches.yaml");
  ASSERT_FALSE(kinds);
  EXPECT_EQ(kinds.error().str(), "caches.yaml:4:18: 'used_by' entries must be a string, found a map");
  kinds = ParseCacheKinds("caches:\n  - name: x\n    ? [root]\n    : /x\n", "caches.yaml");
  ASSERT_FALSE(kinds);
  EXPECT_EQ(kinds.error().str(), "caches.yaml:3:7: a key must be a string, found a list");
}

TEST(ParseCacheKinds, UnknownKeyIsAnErrorWithLineAndColumn) {
  Result<std::vector<CacheKind>> kinds =
      ParseCacheKinds("caches:\n  - name: x\n    root: /x\n    rooot: /y\n", "caches.yaml");
  ASSERT_FALSE(kinds);
  EXPECT_EQ(kinds.error().str(),
            "caches.yaml:4:5: unknown key 'rooot' (expected name, description, root, ninja, used_by)");
}

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "archpatch_cache_XXXXXX").string();
    path_ = mkdtemp(tmpl.data());
  }
  ~TempDir() { fs::remove_all(path_); }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

void Write(const fs::path& p, const std::string& bytes) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << bytes;
}

// A FlashInfer-shaped cache: <root>/0.3.1/120/cached_ops/<module>/{build.ninja,.ninja_deps,*.so}.
struct FakeCache {
  TempDir dir;
  fs::path root = dir.path() / "cache/flashinfer";
  fs::path ops = root / "0.3.1/120/cached_ops";
  fs::path site = dir.path() / "site-packages";
  fs::path header = site / "flashinfer/data/include/flashinfer/comm/trtllm_allreduce.cuh";
  fs::path outside = dir.path() / "precious.txt";

  FakeCache() {
    Write(header, "#if __CUDA_ARCH__ < 1200\n#endif\n");
    Write(outside, "do not delete");
    // Built from the patched header (recorded in ninja's deps log).
    Write(ops / "trtllm_comm/build.ninja", "build trtllm_allreduce.cuda.o: compile " +
                                               (site / "flashinfer/data/csrc/trtllm_allreduce.cu").string() + "\n");
    Write(ops / "trtllm_comm/.ninja_deps", "# ninjadeps\n\x01\x02" + header.string() + "\x00\x00");
    Write(ops / "trtllm_comm/trtllm_comm.so", std::string(1000, 'x'));
    // Another module with no relation to the header.
    Write(ops / "sampling/build.ninja", "build sampling.cuda.o: compile /x/sampling.cu\n");
    Write(ops / "sampling/.ninja_deps", "/x/sampling.cu /x/include/sampling.cuh");
    Write(ops / "sampling/sampling.so", std::string(500, 'y'));
    // Never built with a deps log: matched through its -I folder.
    Write(ops / "norm/build.ninja", "cflags = -I" + (site / "flashinfer/data/include").string() + " -O3\n");
    Write(ops / "norm/norm.so", "zz");
    // A symlink pointing out of the cache: unlinked, never followed.
    fs::create_symlink(outside, ops / "trtllm_comm/escape");
  }
};

TEST(ClearCache, NinjaCacheRemovesOnlyModulesBuiltFromAChangedFile) {
  FakeCache cache;
  RealDisk disk;
  CacheKind kind{"flashinfer", "", "", true, {}};
  Result<ClearReport> report = ClearCache(disk, kind, cache.root, {cache.header});
  ASSERT_TRUE(report) << report.error().str();
  EXPECT_FALSE(report->whole);
  EXPECT_EQ(report->modules, (std::vector<fs::path>{cache.ops / "norm", cache.ops / "trtllm_comm"}));
  EXPECT_FALSE(fs::exists(cache.ops / "trtllm_comm"));
  EXPECT_FALSE(fs::exists(cache.ops / "norm"));
  EXPECT_TRUE(fs::exists(cache.ops / "sampling/sampling.so"));
  EXPECT_EQ(fs::file_size(cache.outside), 13u);
  EXPECT_EQ(report->files, 6u);  // build.ninja, .ninja_deps, .so, escape link; build.ninja, .so
}

TEST(ClearCache, PlainCacheIsEmptiedButTheRootStays) {
  FakeCache cache;
  RealDisk disk;
  CacheKind kind{"triton", "", "", false, {}};
  Result<ClearReport> report = ClearCache(disk, kind, cache.root, {cache.header});
  ASSERT_TRUE(report);
  EXPECT_TRUE(report->whole);
  EXPECT_TRUE(fs::exists(cache.root));
  EXPECT_TRUE(fs::is_empty(cache.root));
  EXPECT_TRUE(fs::exists(cache.outside));
  EXPECT_GE(report->bytes, 1502u);
}

TEST(ClearCache, DryRunCountsAndRemovesNothing) {
  FakeCache cache;
  RealDisk disk;
  CacheKind kind{"flashinfer", "", "", true, {}};
  ClearReport size = MeasureCache(disk, kind, cache.root);
  EXPECT_EQ(size.files, 9u);
  EXPECT_TRUE(fs::exists(cache.ops / "trtllm_comm/trtllm_comm.so"));
}

TEST(ClearCache, MissingRootIsNothingToDo) {
  TempDir dir;
  RealDisk disk;
  Result<ClearReport> report = ClearCache(disk, CacheKind{"x", "", "", false, {}}, dir.path() / "none", {});
  ASSERT_TRUE(report);
  EXPECT_FALSE(report->exists);
  EXPECT_EQ(report->files, 0u);
}

// Issue 16, item 2: a symlinked root was followed and its target emptied.
TEST(ResolveCacheRoot, ASymlinkedRootIsRefusedNeverFollowed) {
  TempDir dir;
  const fs::path somedir = dir.path() / "somedir";
  Write(somedir / "keep.txt", "precious");
  fs::create_directories(dir.path() / "home/.triton");
  fs::create_directory_symlink(somedir, dir.path() / "home/.triton/cache");
  CacheKind triton{"triton", "", "$HOME/.triton/cache", false, {}};
  Result<fs::path> root = ResolveCacheRoot(triton, Env({{"HOME", (dir.path() / "home").string()}}));
  ASSERT_FALSE(root);
  EXPECT_NE(root.error().message.find("is a symlink; archpatch never follows one"), std::string::npos);
  RealDisk disk;
  EXPECT_FALSE(ClearCache(disk, triton, dir.path() / "home/.triton/cache", {}));  // nor when asked directly
  EXPECT_TRUE(fs::exists(somedir / "keep.txt"));
}

TEST(ResolveCacheRoot, ParentFoldersAreResolved) {
  TempDir dir;
  fs::create_directories(dir.path() / "big/.triton/cache");
  fs::create_directory_symlink(dir.path() / "big", dir.path() / "home");
  Result<fs::path> root =
      ResolveCacheRoot(CacheKind{"t", "", (dir.path() / "home/.triton/cache").string(), false, {}}, Env({}));
  ASSERT_TRUE(root) << root.error().str();
  EXPECT_EQ(*root, fs::canonical(dir.path()) / "big/.triton/cache");
}

// HOME=/x/homelink TRITON_CACHE_DIR=/x/home deleted the whole home: the check compared text.
TEST(CheckCacheRoot, ComparesResolvedFoldersNotText) {
  TempDir dir;
  fs::create_directories(dir.path() / "home");
  fs::create_directory_symlink(dir.path() / "home", dir.path() / "homelink");
  EnvLookup env = Env({{"HOME", (dir.path() / "homelink").string()}});
  Result<Ok> refused = CheckCacheRoot(dir.path() / "home", env);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("it is the home folder or contains it"), std::string::npos);
  EXPECT_FALSE(CheckCacheRoot(dir.path(), env));
  EXPECT_TRUE(CheckCacheRoot(dir.path() / "home/.cache/x", env));
}

TEST(ClearCache, ARootWithASymlinkedComponentIsAnError) {
  TempDir dir;
  Write(dir.path() / "real/cache/a.bin", "x");
  fs::create_directory_symlink(dir.path() / "real", dir.path() / "link");
  RealDisk disk;
  Result<ClearReport> report = ClearCache(disk, CacheKind{"x", "", "", false, {}}, dir.path() / "link/cache", {});
  ASSERT_FALSE(report);
  EXPECT_TRUE(fs::exists(dir.path() / "real/cache/a.bin"));
}

}  // namespace
}  // namespace archpatch::store
