// A big file's tokens lexed in parts on several threads. CUTLASS's 2-3 MB mma_sm90_gmma*.hpp
// headers were each the longest single task of an audit on 16 cores, their lexing a third of it.
//
// The lexer keeps no state between tokens: a token is decided by the bytes from where it starts.
// So a part lexed from a line start gives Tokenize's tokens from the first token start the two
// share on. A part that began inside a comment or a literal is joined where the exact tokens,
// lexed on from the end of the part before it, reach one of its token starts; the tokens before
// that are the exact ones. Usually the first token of the part is that start.
#include <algorithm>
#include <cstring>

#include "cuda/tokens.h"
#include "util/parallel.h"

namespace archpatch::cuda {
namespace {

// Where part k of `parts` begins: the line start at or after its share of the bytes (0 for the
// first, `size` when no line starts there).
size_t PartBegin(std::string_view s, size_t k, size_t parts) {
  if (k == 0) return 0;
  if (k == parts) return s.size();
  const size_t at = s.size() / parts * k;
  const void* newline = std::memchr(s.data() + at, '\n', s.size() - at);
  return newline ? static_cast<size_t>(static_cast<const char*>(newline) - s.data()) + 1 : s.size();
}

// The index in `part` of the token that starts at `begin`, or npos.
size_t TokenStartingAt(const std::vector<Token>& part, size_t begin) {
  auto it = std::lower_bound(part.begin(), part.end(), begin, [](const Token& t, size_t b) { return t.begin < b; });
  return it != part.end() && it->begin == begin ? static_cast<size_t>(it - part.begin()) : std::string_view::npos;
}

}  // namespace

std::vector<Token> TokenizeInParts(std::string_view contents, size_t parts) {
  if (parts <= 1 || contents.size() > kMaxTokenizedBytes) return Tokenize(contents);
  std::vector<size_t> begins(parts + 1);
  for (size_t k = 0; k <= parts; ++k) begins[k] = std::max(PartBegin(contents, k, parts), k ? begins[k - 1] : 0);
  std::vector<std::vector<Token>> lexed(parts);
  ParallelFor(parts, static_cast<int>(parts), [&](size_t k) {
    lexed[k] = TokenizeRange(contents, begins[k], k + 1 == parts ? contents.size() + 1 : begins[k + 1]);
  });
  std::vector<Token> tokens = std::move(lexed[0]);
  for (size_t k = 1; k < parts; ++k) {
    const std::vector<Token>& part = lexed[k];
    const size_t part_end = k + 1 == parts ? contents.size() + 1 : begins[k + 1];
    // The exact tokens after the last one kept, one at a time, until one starts where a token of
    // the part does (the rest of the part is then exact) or past the part (the next one takes
    // over from the same place).
    size_t from = tokens.empty() ? 0 : tokens.back().end;
    while (true) {
      const std::optional<Token> t = TokenAfter(contents, from);
      if (!t) return tokens;  // the file's tokens end
      if (t->begin >= part_end) break;
      if (const size_t same = TokenStartingAt(part, t->begin); same != std::string_view::npos) {
        tokens.insert(tokens.end(), part.begin() + static_cast<std::ptrdiff_t>(same), part.end());
        break;
      }
      tokens.push_back(*t);
      from = t->end;
    }
  }
  return tokens;
}

}  // namespace archpatch::cuda
