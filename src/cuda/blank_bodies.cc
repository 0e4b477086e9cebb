#include "cuda/blank_bodies.h"

#include <algorithm>

#include "cuda/directives.h"

namespace archpatch::cuda {
namespace {

using gate::ByteSpan;

// The directive lines of the file, each from its `#` to the end of its last token (the
// continuations and comments on it included), in file order.
std::vector<ByteSpan> DirectiveSpans(const std::vector<Token>& tokens, std::string_view contents) {
  std::vector<ByteSpan> spans;
  for (const Token& t : DirectiveLinesOf(tokens, contents)) {
    if (!spans.empty() && !HasLineBreak(contents.substr(spans.back().end, t.begin - spans.back().end))) {
      spans.back().end = t.end;
    } else {
      spans.push_back({t.begin, t.end});
    }
  }
  return spans;
}

bool HoldsStrayHash(const std::vector<Token>& tokens, std::string_view contents,
                    const std::vector<ByteSpan>& directives, const ByteSpan& body) {
  auto it = std::lower_bound(tokens.begin(), tokens.end(), body.begin + 1,
                             [](const Token& t, size_t offset) { return t.begin < offset; });
  for (; it != tokens.end() && it->end < body.end; ++it) {
    if (it->kind != Token::Kind::kPunctuation || it->Spelling(contents) != "#") continue;
    auto line = std::upper_bound(directives.begin(), directives.end(), size_t{it->begin},
                                 [](size_t offset, const ByteSpan& d) { return offset < d.begin; });
    if (line == directives.begin() || std::prev(line)->end <= it->begin) return true;
  }
  return false;
}

}  // namespace

std::string BlankBodies(std::string_view contents, const std::vector<Token>& tokens,
                        const std::vector<ByteSpan>& bodies) {
  std::string out(contents);
  if (bodies.empty()) return out;
  const std::vector<ByteSpan> directives = DirectiveSpans(tokens, contents);
  size_t covered = 0;
  for (const ByteSpan& body : bodies) {
    if (body.begin < covered || body.end > contents.size() || body.end < body.begin + 2) continue;
    covered = body.end;
    if (HoldsStrayHash(tokens, contents, directives, body)) continue;
    auto kept = std::lower_bound(directives.begin(), directives.end(), body.begin + 1,
                                 [](const ByteSpan& d, size_t offset) { return d.end <= offset; });
    for (size_t i = body.begin + 1; i + 1 < body.end; ++i) {
      if (kept != directives.end() && i >= kept->begin) {
        i = kept->end - 1;
        ++kept;
        continue;
      }
      if (out[i] != '\n' && out[i] != '\r') out[i] = ' ';
    }
  }
  return out;
}

}  // namespace archpatch::cuda
