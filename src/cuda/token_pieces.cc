#include "cuda/token_pieces.h"

#include <algorithm>
#include <cstdint>
#include <limits>

namespace archpatch::cuda {
namespace {

// Where the piece after piece `k` starts: where piece `k` stops.
size_t PieceStop(std::string_view contents, size_t k, size_t count) {
  return k + 1 < count ? PieceStart(contents, k + 1, count) : std::numeric_limits<size_t>::max();
}

}  // namespace

size_t PieceStart(std::string_view contents, size_t k, size_t count) {
  if (k == 0 || count == 0) return 0;
  const size_t nominal = contents.size() * k / count;  // sizes are at most kMaxTokenizedBytes
  if (nominal == 0) return 0;
  // The line that holds byte nominal - 1 ends at or after it: the next line starts after that.
  const size_t newline = contents.find('\n', nominal - 1);
  return newline == std::string_view::npos ? contents.size() : newline + 1;
}

TokenPiece LexPiece(std::string_view contents, size_t k, size_t count) {
  return TokenizeFrom(contents, PieceStart(contents, k, count), PieceStop(contents, k, count));
}

std::vector<Token> JoinPieces(std::string_view contents, std::vector<TokenPiece> pieces) {
  if (pieces.empty()) return {};
  size_t most = 0;  // the tokens of every piece: no copy while the join grows
  for (const TokenPiece& piece : pieces) most += piece.tokens.size();
  std::vector<Token> out = std::move(pieces[0].tokens);
  out.reserve(most);
  bool ended = pieces[0].ended;
  for (size_t k = 1; k < pieces.size() && !ended; ++k) {
    // The file's token that begins at or past piece k's start: it is piece k's from there on when
    // piece k holds a token beginning at the same byte.
    const uint32_t at = out.back().begin;
    out.pop_back();
    const std::vector<Token>& piece = pieces[k].tokens;
    const auto same = std::lower_bound(piece.begin(), piece.end(), at,
                                       [](const Token& t, uint32_t begin) { return t.begin < begin; });
    if (same != piece.end() && same->begin == at) {
      out.insert(out.end(), same, piece.end());
      ended = pieces[k].ended;
      continue;
    }
    TokenPiece again = TokenizeFrom(contents, at, PieceStop(contents, k, pieces.size()));
    out.insert(out.end(), again.tokens.begin(), again.tokens.end());
    ended = again.ended;
  }
  return out;
}

}  // namespace archpatch::cuda
