// The fatbin container on hand-built bytes: layout, flags, and malformed input.
#include "binary/fatbin.h"

#include <algorithm>
#include <cstring>

#include <gtest/gtest.h>

#include "binary/coverage.h"
#include "binary/reader.h"

namespace archpatch::binary {
namespace {

template <typename T>
void Put(std::vector<uint8_t>& out, size_t at, T value) {
  if (out.size() < at + sizeof(T)) out.resize(at + sizeof(T));
  std::memcpy(out.data() + at, &value, sizeof(T));
}

// An entry as nvcc 13 writes it: a 64-byte header, then the payload padded to 8 bytes.
std::vector<uint8_t> Entry(uint16_t kind, uint32_t sm, uint64_t flags, const std::string& payload) {
  std::vector<uint8_t> e(64, 0);
  const uint64_t padded = (payload.size() + 7) & ~uint64_t{7};
  Put<uint16_t>(e, 0, kind);
  Put<uint16_t>(e, 2, 0x0101);
  Put<uint32_t>(e, 4, 64);
  Put<uint64_t>(e, 8, padded);
  Put<uint16_t>(e, 24, kind == kEntryPtx ? 0 : 8);
  Put<uint16_t>(e, 26, kind == kEntryPtx ? 9 : 1);
  Put<uint32_t>(e, 28, sm);
  Put<uint64_t>(e, 40, flags | kFlag64Bit | kFlagLinux);
  e.resize(64 + padded, 0);
  std::copy(payload.begin(), payload.end(), e.begin() + 64);
  return e;
}

std::vector<uint8_t> Container(const std::vector<std::vector<uint8_t>>& entries) {
  std::vector<uint8_t> out(16, 0);
  uint64_t size = 0;
  for (const auto& e : entries) size += e.size();
  Put<uint32_t>(out, 0, kFatbinMagic);
  Put<uint16_t>(out, 4, 1);
  Put<uint16_t>(out, 6, 16);
  Put<uint64_t>(out, 8, size);
  for (const auto& e : entries) out.insert(out.end(), e.begin(), e.end());
  return out;
}

TEST(Fatbin, EntriesCarryKindSmAndVariantFlags) {
  std::vector<uint8_t> bytes =
      Container({Entry(kEntryElf, 90, kFlagArchSpecific, "elf"),
                 Entry(kEntryPtx, 120, kFlagFamilySpecific, ".version 9.0\n"), Entry(kEntryLtoIr, 100, 0, "ir")});
  Result<Fatbin> fatbin = ParseFatbin(bytes);
  ASSERT_TRUE(fatbin.ok()) << fatbin.error().message;
  ASSERT_EQ(fatbin->entries.size(), 3u);
  EXPECT_EQ(EntryArch(fatbin->entries[0]).name(), "sm_90a");
  EXPECT_EQ(EntryArch(fatbin->entries[1]).name(), "sm_120f");
  EXPECT_EQ(fatbin->entries[1].version_major, 9);
  EXPECT_EQ(fatbin->entries[2].kind, kEntryLtoIr);
  EXPECT_EQ(fatbin->size, bytes.size());
}

TEST(Fatbin, AFatbinFileListsItsImagesAndSkipsLtoIr) {
  std::vector<uint8_t> bytes =
      Container({Entry(kEntryPtx, 80, 0, ".version 8.0\n.target sm_80\n"), Entry(kEntryLtoIr, 100, 0, "ir")});
  Result<BinaryFile> file = ReadBinaryBytes(bytes, "k.fatbin");
  ASSERT_TRUE(file.ok()) << file.error().message;
  EXPECT_EQ(file->format, FileFormat::kFatbin);
  EXPECT_EQ(file->Names(ImageKind::kPtx), std::vector<std::string>{"compute_80"});
  EXPECT_EQ(file->images[0].ptx_version, "9.0");
}

// libcufft.so.12 of CUDA 13 in miniature: one old cubin, no PTX, the kernels as LTO-IR that
// nvJitLink builds for the GPU at hand. Not "no kernel image": the kernels are built at run time.
TEST(Fatbin, OneOldCubinAndLtoIrIsRuntimeBuiltNotNoImage) {
  std::vector<uint8_t> bytes =
      Container({Entry(kEntryElf, 75, 0, "cubin"), Entry(kEntryLtoIr, 75, 0, "ir1"), Entry(kEntryLtoIr, 90, 0, "ir2")});
  Result<BinaryFile> file = ReadBinaryBytes(bytes, "libcufft_like.fatbin");
  ASSERT_TRUE(file.ok()) << file.error().message;
  EXPECT_EQ(file->lto_ir_entries, 2u);
  EXPECT_EQ(file->lto_ir_arches, (std::vector<std::string>{"compute_75", "compute_90"}));
  Coverage c = CoverageFor(*file, *arch::ParseArch("sm_120"));
  EXPECT_EQ(c.status, CoverageStatus::kRuntimeBuilt);
  EXPECT_EQ(c.runtime_note, "2 LTO-IR entries (compute_75, compute_90)");
  EXPECT_EQ(CoverageFor(*file, *arch::ParseArch("sm_75")).status, CoverageStatus::kNative);
}

TEST(Fatbin, SequenceSkipsPaddingBetweenContainers) {
  std::vector<uint8_t> bytes = Container({Entry(kEntryElf, 80, 0, "a")});
  bytes.resize(bytes.size() + 16, 0);
  std::vector<uint8_t> second = Container({Entry(kEntryElf, 120, 0, "b")});
  bytes.insert(bytes.end(), second.begin(), second.end());
  std::vector<std::string> warnings;
  std::vector<Fatbin> fatbins = ParseFatbinSequence(bytes, warnings);
  ASSERT_EQ(fatbins.size(), 2u);
  EXPECT_EQ(fatbins[1].entries[0].sm, 120u);
  EXPECT_TRUE(warnings.empty());
}

TEST(Fatbin, StatedSizesPastTheDataAreRefused) {
  std::vector<uint8_t> bytes = Container({Entry(kEntryElf, 80, 0, "payload")});
  Put<uint64_t>(bytes, 8, 1u << 30);  // container size
  EXPECT_FALSE(ParseFatbin(bytes).ok());
  bytes = Container({Entry(kEntryElf, 80, 0, "payload")});
  Put<uint64_t>(bytes, 16 + 8, 1u << 30);  // entry payload size
  EXPECT_FALSE(ParseFatbin(bytes).ok());
  bytes = Container({Entry(kEntryElf, 80, 0, "payload")});
  Put<uint32_t>(bytes, 16 + 4, 8);  // entry header smaller than a header
  EXPECT_FALSE(ParseFatbin(bytes).ok());
}

TEST(Fatbin, CorruptCompressedPayloadIsAnErrorWithABoundedSize) {
  std::vector<uint8_t> bytes = Container({Entry(kEntryElf, 90, kFlagCompressedZstd, "not zstd")});
  Result<Fatbin> fatbin = ParseFatbin(bytes);
  ASSERT_TRUE(fatbin.ok());
  FatbinEntry e = fatbin->entries[0];
  e.decompressed_size = 100;
  EXPECT_FALSE(EntryPayload(bytes, e).ok());
  e.decompressed_size = uint64_t{1} << 40;
  EXPECT_FALSE(EntryPayload(bytes, e).ok());
}

TEST(Fatbin, EveryTruncationAndByteFlipIsHandled) {
  std::vector<uint8_t> good = Container({Entry(kEntryElf, 90, kFlagCompressedLz4, "\x10zz"),
                                         Entry(kEntryPtx, 120, kFlagCompressedZstd, "\x28\xb5\x2f\xfd")});
  for (size_t n = 0; n <= good.size(); ++n) {
    std::vector<uint8_t> cut(good.begin(), good.begin() + n);
    (void)ReadBinaryBytes(cut, "cut.fatbin");
  }
  for (size_t i = 0; i < good.size(); ++i) {
    std::vector<uint8_t> flipped = good;
    flipped[i] ^= 0xFF;
    (void)ReadBinaryBytes(flipped, "flipped.fatbin");
  }
  SUCCEED();  // reaching here without a crash (ASan builds check memory too) is the test
}

TEST(Reader, NonCudaInputIsAnErrorNamingTheFile) {
  std::vector<uint8_t> text = {'h', 'e', 'l', 'l', 'o'};
  Result<BinaryFile> file = ReadBinaryBytes(text, "notes.txt");
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.error().str(), "notes.txt: not a CUDA binary (ELF, cubin, fatbin or PTX)");
}

}  // namespace
}  // namespace archpatch::binary
