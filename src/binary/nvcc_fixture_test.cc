// Reads binaries nvcc 13 builds for known -gencode sets and checks the images and verdicts
// against those sets, as `cuobjdump --list-elf --list-ptx` would name them.
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include <gtest/gtest.h>

#include "binary/coverage.h"
#include "binary/fatbin.h"
#include "binary/nvcc_fixture_test_util.h"
#include "binary/reader.h"

namespace archpatch::binary {
namespace {

using testing::BuildFixture;
using testing::SharedObject;
using Names = std::vector<std::string>;

#define REQUIRE_NVCC() \
  if (!testing::HaveNvcc()) GTEST_SKIP() << "nvcc not found at " << testing::kNvcc

BinaryFile Read(const std::string& path) {
  Result<BinaryFile> file = ReadBinaryFile(path);
  EXPECT_TRUE(file.ok()) << (file ? "" : file.error().str());
  return file ? *file : BinaryFile{};
}

std::string Verdict(const BinaryFile& file, const char* target) {
  Coverage c = CoverageFor(file, *arch::ParseArch(target));
  return std::string(CoverageStatusName(c.status)) + (c.image.empty() ? "" : " " + c.image);
}

TEST(NvccFixtures, PlainSassAndPtxAreListedAndPtxCoversNewerArches) {
  REQUIRE_NVCC();
  BinaryFile f = Read(SharedObject("plain",
                                   "-gencode arch=compute_80,code=sm_80 "
                                   "-gencode arch=compute_90,code=[sm_90,compute_90]"));
  EXPECT_EQ(f.format, FileFormat::kElf);
  EXPECT_EQ(f.Names(ImageKind::kSass), (Names{"sm_80", "sm_90"}));
  EXPECT_EQ(f.Names(ImageKind::kPtx), (Names{"compute_90"}));
  EXPECT_EQ(Verdict(f, "sm_86"), "native sm_80");
  EXPECT_EQ(Verdict(f, "sm_90"), "native sm_90");
  EXPECT_EQ(Verdict(f, "sm_120"), "ptx-jit compute_90");
  EXPECT_EQ(Verdict(f, "sm_121"), "ptx-jit compute_90");
  EXPECT_EQ(Verdict(f, "sm_75"), "no-image");
  // Only the fatbin bytes and headers are read, not the host code.
  EXPECT_LT(f.bytes_read, f.file_size / 4);
}

TEST(NvccFixtures, ArchSpecificImagesRunOnlyOnTheirChip) {
  REQUIRE_NVCC();
  BinaryFile f = Read(SharedObject("a",
                                   "-gencode arch=compute_90a,code=[sm_90a,compute_90a] "
                                   "-gencode arch=compute_100a,code=sm_100a"));
  EXPECT_EQ(f.Names(ImageKind::kSass), (Names{"sm_90a", "sm_100a"}));
  EXPECT_EQ(f.Names(ImageKind::kPtx), (Names{"compute_90a"}));
  EXPECT_EQ(Verdict(f, "sm_90"), "native sm_90a");
  EXPECT_EQ(Verdict(f, "sm_100"), "native sm_100a");
  EXPECT_EQ(Verdict(f, "sm_103"), "no-image");
  EXPECT_EQ(Verdict(f, "sm_120"), "no-image");  // compute_90a PTX does not JIT forward
  EXPECT_EQ(Verdict(f, "sm_121"), "no-image");
}

TEST(NvccFixtures, FamilyImagesRunAcrossTheirFamily) {
  REQUIRE_NVCC();
  BinaryFile f = Read(SharedObject("f",
                                   "-gencode arch=compute_100f,code=[sm_100f,compute_100f] "
                                   "-gencode arch=compute_120f,code=sm_120f"));
  EXPECT_EQ(f.Names(ImageKind::kSass), (Names{"sm_100f", "sm_120f"}));
  EXPECT_EQ(f.Names(ImageKind::kPtx), (Names{"compute_100f"}));
  EXPECT_EQ(Verdict(f, "sm_103"), "native sm_100f");
  EXPECT_EQ(Verdict(f, "sm_120"), "native sm_120f");
  EXPECT_EQ(Verdict(f, "sm_121"), "native sm_120f");
  EXPECT_EQ(Verdict(f, "sm_110"), "no-image");  // compute_100f PTX stays in family 10.x
  EXPECT_EQ(Verdict(f, "sm_90"), "no-image");
}

// libcufft in CUDA 13 wheels: one sm_75 cubin, and NVRTC named only in its string data (linked
// in or loaded by name). Its kernels are built at run time: not "no-image" on sm_120.
TEST(NvccFixtures, AnOldCubinBesideRuntimeCompilerNamesIsRuntimeBuilt) {
  REQUIRE_NVCC();
  const std::filesystem::path names = testing::CacheDir() / "nvrtc_names.c";
  std::ofstream(names) << "__attribute__((used)) const char kCompile[] = \"nvrtcCompileProgram\";\n";
  const std::string so = SharedObject("oldcubin_nvrtc", "-gencode arch=compute_75,code=sm_75 " + names.string());
  EXPECT_EQ(Verdict(Read(so), "sm_120"), "no-image");  // the first, cheap read sees no compiler
  ReadOptions deeper;
  deeper.scan_rodata = true;  // what binary::Scan does before calling a CUDA file uncovered
  Result<BinaryFile> f = ReadBinaryFile(so, deeper);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->runtime_compilers, Names{"nvrtcCompileProgram"});
  EXPECT_EQ(Verdict(*f, "sm_120"), "runtime-built");
  // Without the names, the same cubin stays no-image however deep the read: the static CUDA
  // runtime's own strings (cuLinkCreate among the driver API's names) are no runtime compiler.
  Result<BinaryFile> g = ReadBinaryFile(SharedObject("oldcubin", "-gencode arch=compute_75,code=sm_75"), deeper);
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(Verdict(*g, "sm_120"), "no-image");
}

TEST(NvccFixtures, PtxOnlyBinaryIsJitCompiledEverywhereNewer) {
  REQUIRE_NVCC();
  BinaryFile f = Read(SharedObject("ptxonly", "-gencode arch=compute_80,code=compute_80"));
  EXPECT_EQ(f.Names(ImageKind::kSass), Names{});
  EXPECT_EQ(f.Names(ImageKind::kPtx), (Names{"compute_80"}));
  ASSERT_EQ(f.images.size(), 1u);
  EXPECT_EQ(f.images[0].ptx_version, "9.0");               // nvcc 13.0 writes PTX ISA 9.0
  EXPECT_EQ(f.images[0].compression, Compression::kZstd);  // nvcc 13 compresses PTX by default
  EXPECT_EQ(Verdict(f, "sm_80"), "ptx-jit compute_80");
  EXPECT_EQ(Verdict(f, "sm_120"), "ptx-jit compute_80");
  EXPECT_EQ(Verdict(f, "sm_75"), "no-image");
}

TEST(NvccFixtures, CompressedEntriesAreReadWithZstdAndLz4) {
  REQUIRE_NVCC();
  const std::string gencode =
      "-Xfatbin=-compress-all -gencode arch=compute_90a,code=[sm_90a,compute_90a] "
      "-gencode arch=compute_120,code=sm_120";
  for (const char* mode : {"balance", "speed", "size"}) {
    BinaryFile f = Read(SharedObject(std::string("compressed-") + mode, gencode + " --compress-mode=" + mode));
    EXPECT_EQ(f.Names(ImageKind::kSass), (Names{"sm_90a", "sm_120"})) << mode;
    EXPECT_EQ(f.Names(ImageKind::kPtx), (Names{"compute_90a"})) << mode;
    const Compression expected = std::string(mode) == "speed" ? Compression::kLz4 : Compression::kZstd;
    for (const Image& image : f.images) EXPECT_EQ(image.compression, expected) << mode << " " << image.name();
    EXPECT_EQ(Verdict(f, "sm_121"), "native sm_120") << mode;
    EXPECT_EQ(Verdict(f, "sm_90"), "native sm_90a") << mode;
  }
}

// A mapped file gives each fatbin container's pages back once read (ReadOptions::
// release_read_pages): what it reports must be what the same bytes in memory give, and a second
// read of the file (its pages mapped in again from disk) the same again.
TEST(NvccFixtures, AMappedFileThatGivesBackItsPagesReadsAsTheSameBytesInMemory) {
  REQUIRE_NVCC();
  const std::string so =
      SharedObject("released",
                   "-Xfatbin=-compress-all -gencode arch=compute_90a,code=[sm_90a,compute_90a] "
                   "-gencode arch=compute_100f,code=sm_100f -gencode arch=compute_120,code=[sm_120,compute_120]");
  std::ifstream in(so, std::ios::binary);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Result<BinaryFile> in_memory = ReadBinaryBytes(bytes, so);
  ASSERT_TRUE(in_memory) << in_memory.error().str();
  auto shown = [](const BinaryFile& f) {
    std::string out;
    for (const Image& i : f.images) out += i.name() + "@" + i.where + " ";
    return out;
  };
  EXPECT_EQ(shown(Read(so)), shown(*in_memory));
  EXPECT_EQ(shown(Read(so)), shown(*in_memory));
  EXPECT_EQ(in_memory->Names(ImageKind::kSass), (Names{"sm_90a", "sm_100f", "sm_120"}));
}

TEST(NvccFixtures, InspectingPayloadsFindsTheVariantWhenTheHeaderLacksIt) {
  REQUIRE_NVCC();
  // Make the entry headers look like an older toolkit's (ELF ABI 7, PTX ISA 8.8, no a bit):
  // the variant must then come from inside the (LZ4-compressed) payloads, the ELF's
  // .nv.compat and the PTX .target.
  const std::string path = SharedObject("compressed-speed",
                                        "-Xfatbin=-compress-all -gencode arch=compute_90a,code=[sm_90a,compute_90a] "
                                        "-gencode arch=compute_120,code=sm_120 --compress-mode=speed");
  std::ifstream in(path, std::ios::binary);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> warnings;
  int cleared = 0;
  for (const Fatbin& fatbin : ParseFatbinSequence(bytes, warnings)) {
    for (const FatbinEntry& e : fatbin.entries) {
      uint64_t flags = 0;
      std::memcpy(&flags, bytes.data() + e.header_offset + 40, 8);
      cleared += (flags & kFlagArchSpecific) != 0;
      flags &= ~uint64_t{kFlagArchSpecific};
      std::memcpy(bytes.data() + e.header_offset + 40, &flags, 8);
      const uint16_t old_minor = e.kind == kEntryElf ? 7 : 8, old_major = e.kind == kEntryElf ? 1 : 8;
      std::memcpy(bytes.data() + e.header_offset + 24, &old_minor, 2);
      std::memcpy(bytes.data() + e.header_offset + 26, &old_major, 2);
    }
  }
  EXPECT_GE(cleared, 2);  // sm_90a SASS and PTX, plus the device-link stub's sm_90a image
  Result<BinaryFile> inspected = ReadBinaryBytes(bytes, path);
  ASSERT_TRUE(inspected.ok());
  EXPECT_EQ(inspected->Names(ImageKind::kSass), (Names{"sm_90a", "sm_120"}));
  EXPECT_EQ(inspected->Names(ImageKind::kPtx), (Names{"compute_90a"}));
  Result<BinaryFile> header_only = ReadBinaryBytes(bytes, path, ReadOptions{.inspect_payloads = false});
  ASSERT_TRUE(header_only.ok());
  EXPECT_EQ(header_only->Names(ImageKind::kSass), (Names{"sm_90", "sm_120"}));
  // An nvcc 13 header is trusted as it is: clearing only the a bit is not second-guessed.
  std::ifstream again(path, std::ios::binary);
  std::vector<uint8_t> fresh((std::istreambuf_iterator<char>(again)), std::istreambuf_iterator<char>());
  for (const Fatbin& fatbin : ParseFatbinSequence(fresh, warnings)) {
    for (const FatbinEntry& e : fatbin.entries) fresh[e.header_offset + 42] &= ~0x10;  // bit 20
  }
  Result<BinaryFile> trusted = ReadBinaryBytes(fresh, path);
  ASSERT_TRUE(trusted.ok());
  EXPECT_EQ(trusted->Names(ImageKind::kSass), (Names{"sm_90", "sm_120"}));
}

TEST(NvccFixtures, WrapperAddressesAreFollowedThroughRelocations) {
  REQUIRE_NVCC();
  // Hide .nv_fatbin under another name and zero the wrappers' in-place addresses, as lld leaves
  // them in position-independent files: the fatbins must be found through .nvFatBinSegment and
  // the R_X86_64_RELATIVE relocations alone.
  const std::string path = SharedObject("plain",
                                        "-gencode arch=compute_80,code=sm_80 "
                                        "-gencode arch=compute_90,code=[sm_90,compute_90]");
  std::ifstream in(path, std::ios::binary);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string text(bytes.begin(), bytes.end());
  const size_t name = text.find(std::string(".nv_fatbin\0", 11));
  ASSERT_NE(name, std::string::npos);
  bytes[name + 9] = 'X';  // ".nv_fatbiX"
  int zeroed = 0;
  for (size_t at = 0; at + 24 <= bytes.size(); at += 8) {
    uint32_t magic = 0;
    std::memcpy(&magic, bytes.data() + at, 4);
    if (magic != 0x466243b1) continue;
    std::memset(bytes.data() + at + 8, 0, 8);
    ++zeroed;
  }
  EXPECT_EQ(zeroed, 2);
  Result<BinaryFile> file = ReadBinaryBytes(bytes, path);
  ASSERT_TRUE(file.ok());
  EXPECT_EQ(file->Names(ImageKind::kSass), (Names{"sm_80", "sm_90"}));
  EXPECT_EQ(file->Names(ImageKind::kPtx), (Names{"compute_90"}));
  EXPECT_EQ(file->images.back().where, ".nv_fatbiX");
}

TEST(NvccFixtures, StandaloneCubinFatbinAndPtxFiles) {
  REQUIRE_NVCC();
  EXPECT_EQ(Read(BuildFixture("k120f.cubin", "-cubin -arch sm_120f")).Names(ImageKind::kSass), (Names{"sm_120f"}));
  EXPECT_EQ(Read(BuildFixture("k90a.cubin", "-cubin -arch sm_90a")).Names(ImageKind::kSass), (Names{"sm_90a"}));
  EXPECT_EQ(Read(BuildFixture("k100.cubin", "-cubin -arch sm_100")).Names(ImageKind::kSass), (Names{"sm_100"}));
  BinaryFile fatbin = Read(BuildFixture("k.fatbin",
                                        "-fatbin -gencode arch=compute_80,code=[sm_80,compute_80] "
                                        "-gencode arch=compute_120a,code=sm_120a"));
  EXPECT_EQ(fatbin.format, FileFormat::kFatbin);
  EXPECT_EQ(fatbin.Names(ImageKind::kSass), (Names{"sm_80", "sm_120a"}));
  EXPECT_EQ(Verdict(fatbin, "sm_121"), "ptx-jit compute_80");
  BinaryFile ptx = Read(BuildFixture("k.ptx", "-ptx -arch sm_120a"));
  EXPECT_EQ(ptx.format, FileFormat::kPtx);
  EXPECT_EQ(ptx.Names(ImageKind::kPtx), (Names{"compute_120a"}));
  EXPECT_EQ(Verdict(ptx, "sm_120"), "ptx-jit compute_120a");
  EXPECT_EQ(Verdict(ptx, "sm_121"), "no-image");
}

TEST(NvccFixtures, RelocatableImagesAreListedButGiveNoCoverage) {
  REQUIRE_NVCC();
  // -rdc keeps each object's fatbin in __nv_relfatbin for a later device link; the runtime
  // loads only the linked sm_80 image from .nv_fatbin.
  BinaryFile f = Read(SharedObject("rdc", "-rdc=true -gencode arch=compute_80,code=[sm_80,compute_80]"));
  EXPECT_EQ(f.Names(ImageKind::kPtx, /*include_relocatable=*/true), (Names{"compute_80"}));
  EXPECT_EQ(f.Names(ImageKind::kPtx, /*include_relocatable=*/false), Names{});
  EXPECT_EQ(Verdict(f, "sm_86"), "native sm_80");
  EXPECT_EQ(Verdict(f, "sm_120"), "no-image");
}

}  // namespace
}  // namespace archpatch::binary
