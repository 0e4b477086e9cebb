// Sixteen bytes tested at once, for the readers that pass over most of a file looking for a few
// byte patterns (the prefilter's stops, the directive skim, Python comments and string bodies).
// Written with GCC's and Clang's vector extensions, which compile to SSE2 on x86-64 and to NEON
// on aarch64 (DGX Spark, Thor): no intrinsics of either, and no other code path to keep in step.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace archpatch {

class ByteBlock {
 public:
  static constexpr size_t kSize = 16;

  // The kSize bytes at `p`, which must all be readable.
  static ByteBlock Load(const char* p) {
    ByteBlock b;
    std::memcpy(&b.v_, p, kSize);
    return b;
  }

  // Every byte with its 0x20 bit set: a comparison with a lower-case letter then matches it in
  // either case, and nothing else (b | 0x20 is a letter x only for x and its upper case).
  ByteBlock Folded() const { return ByteBlock(v_ | 0x20); }

  // A lane mask: 0xFF where the byte is `c`, 0 elsewhere.
  ByteBlock Is(unsigned char c) const { return ByteBlock(ToBytes(v_ == c)); }
  // A lane mask of the bytes from 0x80 up: UTF-8's.
  ByteBlock NonAscii() const { return ByteBlock(ToBytes(__builtin_convertvector(v_, Mask) < 0)); }
  // A lane mask of the bytes below `c` (unsigned): with 0x20, the control bytes and 0x00.
  ByteBlock Below(unsigned char c) const { return ByteBlock(ToBytes(v_ < c)); }

  ByteBlock operator|(ByteBlock o) const { return ByteBlock(v_ | o.v_); }
  ByteBlock operator&(ByteBlock o) const { return ByteBlock(v_ & o.v_); }

  // Of a lane mask: whether a lane is set, and the first one set (when one is).
  bool Any() const {
    uint64_t half[2];
    std::memcpy(half, &v_, kSize);
    return (half[0] | half[1]) != 0;
  }
  size_t First() const {
    uint64_t half[2];
    std::memcpy(half, &v_, kSize);
    static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "lane 0 is the low byte of the first half");
    return half[0] != 0 ? std::countr_zero(half[0]) / 8 : 8 + std::countr_zero(half[1]) / 8;
  }

 private:
  using Vector = unsigned char __attribute__((vector_size(kSize)));
  using Mask = signed char __attribute__((vector_size(kSize)));  // what a comparison yields: 0 or -1
  ByteBlock() = default;
  explicit ByteBlock(Vector v) : v_(v) {}
  static Vector ToBytes(Mask m) { return __builtin_convertvector(m, Vector); }

  Vector v_{};
};

// The first byte at or after `p` that is one of `Stops`, or with kNonAscii one from 0x80 up;
// s.size() when there is none. Sixteen bytes at a time, the last few one by one: the bytes a
// reader must look at (a quote, a line break) are rare in what it passes over (a comment, a
// string's body).
template <bool kNonAscii, char... Stops>
size_t FindFirstOf(std::string_view s, size_t p) {
  const char* const d = s.data();
  const size_t n = s.size();
  for (; p + ByteBlock::kSize <= n; p += ByteBlock::kSize) {
    const ByteBlock block = ByteBlock::Load(d + p);
    ByteBlock stops = (block.Is(static_cast<unsigned char>(Stops)) | ...);
    if constexpr (kNonAscii) stops = stops | block.NonAscii();
    if (stops.Any()) return p + stops.First();
  }
  for (; p < n; ++p) {
    const char c = d[p];
    if (((c == Stops) || ...) || (kNonAscii && static_cast<unsigned char>(c) >= 0x80)) return p;
  }
  return n;
}

}  // namespace archpatch
