#include "binary/lz4.h"

namespace archpatch::binary {
namespace {

// An LZ4 length: the 4-bit field, extended by bytes of 255 while they last.
bool ReadLength(std::span<const uint8_t> in, size_t& pos, size_t& length) {
  if (length != 15) return true;
  while (true) {
    if (pos >= in.size()) return false;
    const uint8_t byte = in[pos++];
    length += byte;
    if (byte != 255) return true;
  }
}

}  // namespace

Result<std::string> Lz4DecompressBlock(std::span<const uint8_t> in, size_t decompressed_size) {
  std::string out;
  out.reserve(decompressed_size);
  size_t pos = 0;
  while (pos < in.size()) {
    const uint8_t token = in[pos++];
    size_t literals = token >> 4;
    if (!ReadLength(in, pos, literals) || literals > in.size() - pos || literals > decompressed_size - out.size()) {
      return Error{"LZ4 literal run runs past the data", {}};
    }
    out.append(reinterpret_cast<const char*>(in.data() + pos), literals);
    pos += literals;
    if (pos == in.size()) break;  // the last sequence has literals only
    if (in.size() - pos < 2) return Error{"LZ4 match offset truncated", {}};
    const size_t offset = in[pos] | (in[pos + 1] << 8);
    pos += 2;
    size_t match = token & 15;
    if (!ReadLength(in, pos, match)) return Error{"LZ4 match length truncated", {}};
    match += 4;
    if (offset == 0 || offset > out.size()) return Error{"LZ4 match offset out of range", {}};
    if (match > decompressed_size - out.size()) return Error{"LZ4 match runs past the output", {}};
    // Byte by byte: a match may overlap the bytes it is copying (offset < length).
    for (size_t from = out.size() - offset; match > 0; --match) out.push_back(out[from++]);
  }
  if (out.size() != decompressed_size) return Error{"LZ4 block shorter than its stated size", {}};
  return out;
}

}  // namespace archpatch::binary
