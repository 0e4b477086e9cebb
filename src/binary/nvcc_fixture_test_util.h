// Test helper: builds small CUDA binaries with the local nvcc, cached in the build tree so that
// only the first run pays for nvcc (seconds per call). Tests skip when nvcc is absent.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace archpatch::binary::testing {

inline const char* kNvcc = "/usr/local/cuda/bin/nvcc";

inline bool HaveNvcc() { return access(kNvcc, X_OK) == 0; }

// One kernel and a host launcher, so nvcc keeps the kernel and registers its fatbin.
inline const char* kKernelSource = R"(
__global__ void scale(float* x, float v) { x[threadIdx.x] *= v; }
void launch_scale(float* x) { scale<<<1, 32>>>(x, 2.0f); }
)";

inline std::filesystem::path CacheDir() {
#ifdef ARCHPATCH_BINARY_FIXTURE_CACHE
  std::filesystem::path dir = ARCHPATCH_BINARY_FIXTURE_CACHE;
#else
  std::filesystem::path dir = std::filesystem::temp_directory_path() / "archpatch-binary-fixtures";
#endif
  std::filesystem::create_directories(dir);
  return dir;
}

// Builds `name` with `nvcc ARGS -o OUT kernel.cu` unless the cache holds it for the same
// arguments. Returns the path, or "" when nvcc failed (the test then fails with its log).
inline std::string BuildFixture(const std::string& name, const std::string& args) {
  const std::filesystem::path dir = CacheDir();
  const std::string key = fmt::format("{:016x}", std::hash<std::string>{}(args + kKernelSource));
  const std::filesystem::path out = dir / (key + "-" + name);
  if (std::filesystem::exists(out)) return out.string();
  const std::filesystem::path source = dir / "kernel.cu";
  if (!std::filesystem::exists(source)) {
    const std::filesystem::path tmp = dir / fmt::format("kernel.cu.{}", getpid());
    std::ofstream(tmp) << kKernelSource;
    std::filesystem::rename(tmp, source);
  }
  // Written beside, renamed into place: parallel test processes never see half a file.
  const std::string tmp = fmt::format("{}.tmp{}", out.string(), getpid());
  const std::string cmd = fmt::format("{} {} -o '{}' '{}' >'{}.log' 2>&1", kNvcc, args, tmp, source.string(), tmp);
  if (std::system(cmd.c_str()) != 0) {
    ADD_FAILURE() << "nvcc failed: " << cmd;
    return "";
  }
  std::filesystem::rename(tmp, out);
  std::filesystem::remove(tmp + ".log");
  return out.string();
}

inline std::string SharedObject(const std::string& name, const std::string& gencode) {
  return BuildFixture(name + ".so", "-shared -Xcompiler -fPIC " + gencode);
}

}  // namespace archpatch::binary::testing
