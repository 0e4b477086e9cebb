// One file's tokens lexed in pieces by several threads at once, then joined: the largest files
// lexed ahead (scan/lex_ahead.h), CUTLASS's 2.8-2.9 MB mma_sm90_gmma*_ext.hpp, whose lexing on one
// thread was most of the path that ended the findings round on 16 cores.
//
// Each piece is lexed from a line start as if a token started there. Where the file's tokens
// reach a piece (the token of the piece before it that begins at or past the piece's start), the
// piece is kept from that token on when it holds a token beginning at the same byte: the lexer
// keeps no state but its place, so from a byte where a token begins it gives the file's tokens,
// whoever lexes. A piece that began inside a comment, a string or a spliced line and never meets
// the file's tokens is lexed again from where they reach it. The join is Tokenize's tokens,
// whatever the bytes.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "cuda/tokens.h"

namespace archpatch::cuda {

// Where piece `k` of `count` starts: 0 for the first, else the start of the first line that
// begins at or after byte k * size / count (the file's size when none does).
size_t PieceStart(std::string_view contents, size_t k, size_t count);

// Piece `k` of `count`: TokenizeFrom from its start to the next piece's (the last to the end).
TokenPiece LexPiece(std::string_view contents, size_t k, size_t count);

// Tokenize(contents), from LexPiece(contents, k, pieces.size()) for every k in order.
std::vector<Token> JoinPieces(std::string_view contents, std::vector<TokenPiece> pieces);

}  // namespace archpatch::cuda
