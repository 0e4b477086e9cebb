#include "scan/prefilter_stops.h"

#include "util/byte_block.h"

namespace archpatch::scan {
namespace {

// The byte at `at` with its 0x20 bit set (a letter in lower case), 0 past the end.
char Folded(std::string_view s, size_t at) { return at < s.size() ? static_cast<char>(s[at] | 0x20) : '\0'; }

}  // namespace

bool IsPrefilterStop(std::string_view s, size_t at) {
  const char c = s[at];
  if (c == '#' || c == '"' || c == '/') return true;
  const char second = Folded(s, at + 1);
  switch (Folded(s, at)) {
    case 's': return second == 'm';
    case 'c': return second == 'c';
    case 'a': return second == 'j';
    case 'n': return second == 'v';
    case 'i': return second == 'n' && Folded(s, at + 2) == 'o';
    case 'r': return second == 'c' && Folded(s, at + 2) == 'h';
    case 'p': return second == 'a' && Folded(s, at + 2) == 'b';
    default: return false;
  }
}

size_t NextPrefilterStop(std::string_view s, size_t from) {
  const char* const d = s.data();
  const size_t n = s.size();
  size_t at = from;
  // A block's triggers read two bytes past it; the last bytes are tested one at a time.
  for (; at + ByteBlock::kSize + 2 <= n; at += ByteBlock::kSize) {
    const ByteBlock raw = ByteBlock::Load(d + at);
    const ByteBlock c0 = raw.Folded(), c1 = ByteBlock::Load(d + at + 1).Folded(),
                    c2 = ByteBlock::Load(d + at + 2).Folded();
    const ByteBlock skips = raw.Is('#') | raw.Is('"') | raw.Is('/');
    const ByteBlock pairs =
        (c0.Is('s') & c1.Is('m')) | (c0.Is('c') & c1.Is('c')) | (c0.Is('a') & c1.Is('j')) | (c0.Is('n') & c1.Is('v'));
    const ByteBlock triples = (c0.Is('i') & c1.Is('n') & c2.Is('o')) | (c0.Is('r') & c1.Is('c') & c2.Is('h')) |
                              (c0.Is('p') & c1.Is('a') & c2.Is('b'));
    const ByteBlock stops = skips | pairs | triples;
    if (stops.Any()) return at + stops.First();
  }
  while (at < n && !IsPrefilterStop(s, at)) ++at;
  return at;
}

bool HoldsTrigger(std::string_view name) {
  for (size_t at = 0; at < name.size(); ++at) {
    if (name[at] != '#' && name[at] != '"' && name[at] != '/' && IsPrefilterStop(name, at)) return true;
  }
  return false;
}

}  // namespace archpatch::scan
