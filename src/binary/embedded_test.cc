// Kernels a library embeds as plain data and loads itself (cuModuleLoadData): found by the
// .rodata search only when the registered fatbins leave a target uncovered.
#include <filesystem>
#include <fstream>
#include <iterator>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "binary/nvcc_fixture_test_util.h"
#include "binary/scan.h"

namespace archpatch::binary {
namespace {

std::string ByteArray(const std::string& name, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string out = fmt::format("extern \"C\" alignas(8) const unsigned char {}[] = {{", name);
  for (unsigned char c : bytes) out += fmt::format("{},", static_cast<int>(c));
  return out + "};\n";
}

// A host-only shared object holding a fatbin (sm_120a) and a cubin (sm_100a) as byte arrays,
// and calling cuModuleLoadData (declared here, resolved at load time) the way such libraries do.
std::string BuildEmbeddingLibrary() {
  const std::filesystem::path out = testing::CacheDir() / "embedding-v2.so";
  if (std::filesystem::exists(out)) return out.string();
  const std::string fatbin = testing::BuildFixture("k120a.fatbin", "-fatbin -gencode arch=compute_120a,code=sm_120a");
  const std::string cubin = testing::BuildFixture("k100a.cubin", "-cubin -arch sm_100a");
  const std::filesystem::path source = testing::CacheDir() / fmt::format("embedding.{}.cc", getpid());
  std::ofstream(source) << ByteArray("kernels_fatbin", fatbin) << ByteArray("kernels_cubin", cubin)
                        << "extern \"C\" int cuModuleLoadData(void**, const void*);\n"
                        << "extern \"C\" int load(void** m) { return cuModuleLoadData(m, kernels_fatbin); }\n";
  const std::string tmp = fmt::format("{}.tmp{}", out.string(), getpid());
  const std::string cmd = fmt::format("c++ -shared -fPIC -o '{}' '{}'", tmp, source.string());
  if (std::system(cmd.c_str()) != 0) return "";
  std::filesystem::remove(source);
  std::filesystem::rename(tmp, out);
  return out.string();
}

TEST(EmbeddedKernels, FoundInRodataWhenNothingRegisteredCoversTheTarget) {
  if (!testing::HaveNvcc()) GTEST_SKIP() << "nvcc not found at " << testing::kNvcc;
  const std::string library = BuildEmbeddingLibrary();
  ASSERT_FALSE(library.empty());
  Result<BinaryFile> plain = ReadBinaryFile(library);
  ASSERT_TRUE(plain.ok());
  EXPECT_TRUE(plain->images.empty());  // no .nv_fatbin: the default read finds nothing

  ScanOptions options;
  options.targets = *arch::ParseArchList("sm_120,sm_100");
  BinaryScan scan = ScanBinaries({library}, options);
  ASSERT_EQ(scan.files.size(), 1u);
  const BinaryFile& file = scan.files[0].file;
  EXPECT_EQ(file.Names(ImageKind::kSass), (std::vector<std::string>{"sm_100a", "sm_120a"}));
  EXPECT_EQ(file.EmbeddedNames(ImageKind::kSass), (std::vector<std::string>{"sm_100a", "sm_120a"}));
  EXPECT_EQ(scan.files[0].coverage[0].image, "sm_120a");
  EXPECT_EQ(scan.files[0].coverage[1].image, "sm_100a");
}

TEST(EmbeddedKernels, PlainHostLibrariesAreNotSearched) {
  // A library with no CUDA sections and no module-loading import: its .rodata is not read.
  ScanOptions options;
  options.targets = *arch::ParseArchList("sm_120");
  BinaryScan scan = ScanBinaries({"/proc/self/exe"}, options);
  EXPECT_TRUE(scan.files.empty());
  EXPECT_LT(scan.bytes_read, 64u * 1024);
}

}  // namespace
}  // namespace archpatch::binary
