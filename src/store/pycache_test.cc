// Stale bytecode, with a real python3: the dangerous cases are a pyc whose recorded source size
// and mtime still match (an edit that keeps the length, with the mtime restored as some installers
// and image builds do) and an unchecked-hash pyc, which CPython never validates.
#include "store/pycache.h"

#include <sys/wait.h>

#include <fstream>

#include <gtest/gtest.h>

#include "env/digest.h"
#include "store/transaction.h"

namespace archpatch::store {

using env::Sha256Hex;
namespace {

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "archpatch_pyc_XXXXXX").string();
    path_ = mkdtemp(tmpl.data());
  }
  ~TempDir() { fs::remove_all(path_); }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

std::string Run(const std::string& command) {
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return "popen failed";
  char buffer[256];
  while (size_t n = fread(buffer, 1, sizeof buffer, pipe)) out.append(buffer, n);
  pclose(pipe);
  return out;
}

bool HavePython() { return std::system("python3 -c pass >/dev/null 2>&1") == 0; }

// Compiles gate.py at opt levels 0, 1, 2 in `mode`, patches it through the store keeping size
// and mtime, and returns what `import gate` then prints.
std::string PatchAndImport(const fs::path& site, const std::string& mode, const std::string& env = "") {
  fs::path source = site / "gate.py";
  std::ofstream(source, std::ios::binary) << "MAJORS = [9, 10]\n";
  std::string compile = env + " python3 -c \"import py_compile as p; [p.compile('" + source.string() +
                        "', optimize=o, invalidation_mode=p.PycInvalidationMode." + mode + ") for o in (0, 1, 2)]\"";
  EXPECT_EQ(std::system(compile.c_str()), 0);
  auto mtime = fs::last_write_time(source);
  RealDisk disk;
  StateDir state(disk, site);
  RuleChange change;
  change.entry.rule = "widen";
  change.files.push_back({"gate.py", Sha256Hex("MAJORS = [9, 10]\n"), "MAJORS = [9, 12]\n", {}, nullptr});
  TransactionOptions options;
  if (!env.empty()) options.pycache_prefix = env.substr(env.find('=') + 1);
  Result<ApplyOutcome> out = ApplyChanges(state, {change}, options);
  EXPECT_TRUE(out) << out.error().str();
  fs::last_write_time(source, mtime);  // the dangerous case: same size, same mtime
  // Every optimisation level went, not only the one the next import uses.
  EXPECT_TRUE(CachedBytecodeFor(disk, source, options.pycache_prefix).empty());
  return Run("cd " + site.string() + " && " + env + " python3 -c 'import gate; print(gate.MAJORS)'");
}

TEST(Pycache, TimestampPycWithSameSizeAndMtimeIsRemoved) {
  if (!HavePython()) GTEST_SKIP() << "python3 not found";
  TempDir dir;
  EXPECT_EQ(PatchAndImport(dir.path(), "TIMESTAMP"), "[9, 12]\n");
}

TEST(Pycache, UncheckedHashPycIsRemoved) {
  if (!HavePython()) GTEST_SKIP() << "python3 not found";
  TempDir dir;
  EXPECT_EQ(PatchAndImport(dir.path(), "UNCHECKED_HASH"), "[9, 12]\n");
}

TEST(Pycache, PycachePrefixMirrorIsRemoved) {
  if (!HavePython()) GTEST_SKIP() << "python3 not found";
  TempDir dir;
  fs::path site = dir.path() / "site";
  fs::create_directories(site);
  fs::path prefix = dir.path() / "pycache";
  EXPECT_EQ(PatchAndImport(site, "UNCHECKED_HASH", "PYTHONPYCACHEPREFIX=" + prefix.string()), "[9, 12]\n");
}

TEST(Pycache, FindsEveryTagAndOptLevelButNotOtherModules) {
  FakeDisk disk;
  disk.AddFile("/s/pkg/comm.py", "");
  for (const char* name :
       {"comm.cpython-311.pyc", "comm.cpython-311.opt-1.pyc", "comm.cpython-311.opt-2.pyc", "comm.cpython-312.pyc",
        "comm_utils.cpython-311.pyc", "mnnvl.cpython-311.pyc", "comm.cpython-311.pyc.tmp"}) {
    disk.AddFile(fs::path("/s/pkg/__pycache__") / name, "x");
  }
  disk.AddFile("/prefix/s/pkg/comm.cpython-311.pyc", "x");
  std::vector<fs::path> found = CachedBytecodeFor(disk, "/s/pkg/comm.py", fs::path("/prefix"));
  std::vector<fs::path> expected = {
      "/prefix/s/pkg/comm.cpython-311.pyc", "/s/pkg/__pycache__/comm.cpython-311.opt-1.pyc",
      "/s/pkg/__pycache__/comm.cpython-311.opt-2.pyc", "/s/pkg/__pycache__/comm.cpython-311.pyc",
      "/s/pkg/__pycache__/comm.cpython-312.pyc"};
  EXPECT_EQ(found, expected);
  EXPECT_TRUE(CachedBytecodeFor(disk, "/s/pkg/comm.cuh", fs::path("/prefix")).empty());
}

}  // namespace
}  // namespace archpatch::store
