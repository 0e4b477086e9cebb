// The arch table against the real compiler: for every target, the -D flags of nvcc's device pass
// (`--dryrun`) must be exactly arch::DeviceMacros, and `nvcc --list-gpu-code` must list exactly
// the table's plain targets. Skips, saying so, when nvcc is not installed.
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "arch/arch.h"

namespace archpatch::arch {
namespace {

// $NVCC, else /usr/local/cuda/bin/nvcc; "" when neither is executable.
std::string FindNvcc() {
  const char* env = std::getenv("NVCC");
  for (std::string path : {std::string(env ? env : ""), std::string("/usr/local/cuda/bin/nvcc")}) {
    if (!path.empty() && access(path.c_str(), X_OK) == 0) return path;
  }
  return "";
}

// stdout and stderr of a shell command.
std::string RunShell(const std::string& command) {
  std::string out;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return out;
  std::array<char, 4096> buffer;
  size_t n;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) out.append(buffer.data(), n);
  pclose(pipe);
  return out;
}

// The -D flags of the device pass: the `gcc ... -E` line that defines __CUDA_ARCH__.
std::map<std::string, std::string> DeviceDefines(const std::string& dryrun) {
  std::istringstream lines(dryrun);
  std::map<std::string, std::string> defines;
  for (std::string line; std::getline(lines, line);) {
    if (line.find(" -E ") == std::string::npos || line.find("-D__CUDA_ARCH__=") == std::string::npos) continue;
    std::istringstream words(line);
    for (std::string w; words >> w;) {
      if (w.rfind("-D", 0) != 0) continue;
      const size_t eq = w.find('=');
      defines[w.substr(2, eq == std::string::npos ? std::string::npos : eq - 2)] =
          eq == std::string::npos ? "" : w.substr(eq + 1);
    }
    break;
  }
  return defines;
}

class ArchNvccTest : public ::testing::Test {
 protected:
  void SetUp() override {
    nvcc_ = FindNvcc();
    if (nvcc_.empty())
      GTEST_SKIP()
          << "nvcc not found ($NVCC unset, no /usr/local/cuda/bin/nvcc): arch table not checked against the compiler";
  }
  std::string nvcc_;
};

TEST_F(ArchNvccTest, DevicePassMacrosMatchTheTableForEveryTarget) {
  const auto dir = std::filesystem::temp_directory_path() / ("archpatch_nvcc_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::FILE* f = std::fopen((dir / "x.cu").c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fclose(f);
  for (const Arch& arch : AllArches()) {
    const std::string code = arch.name();
    const std::string dryrun =
        RunShell("cd '" + dir.string() + "' && '" + nvcc_ + "' -gencode arch=" + arch.compute_name() + ",code=" + code +
                 " --dryrun -c x.cu");
    const std::map<std::string, std::string> actual = DeviceDefines(dryrun);
    ASSERT_FALSE(actual.empty()) << code << ": no device pass in nvcc --dryrun output:\n" << dryrun;
    std::map<std::string, std::string> expected;
    for (const Macro& m : DeviceMacros(arch)) expected[m.name] = m.value;
    EXPECT_EQ(expected, actual) << code;
  }
  std::filesystem::remove_all(dir);
}

TEST_F(ArchNvccTest, ListGpuCodeMatchesThePlainTargets) {
  std::istringstream lines(RunShell("'" + nvcc_ + "' --list-gpu-code"));
  std::vector<std::string> listed;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("sm_", 0) == 0) listed.push_back(line);
  }
  std::vector<std::string> plain;
  for (const Arch& a : AllArches()) {
    if (a.variant == Variant::kPlain) plain.push_back(a.name());
  }
  std::sort(listed.begin(), listed.end());
  std::sort(plain.begin(), plain.end());
  EXPECT_EQ(plain, listed);
}

}  // namespace
}  // namespace archpatch::arch
