// The directive lines of a C/C++ file without lexing the rest of it. A pass that reads only
// directives (the first read and the definition rounds of an audit, docs/architecture.md) needs
// the tokens of the lines that start with `#` and nothing else; lexing a CUTLASS header whole for
// them was most of that pass. The skim follows only what can hide such a `#` or make one: line
// breaks, comments, string and character literals. The directive lines themselves are lexed by
// Tokenize's lexer (TokenizeLogicalLine).
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "cuda/tokens.h"

namespace archpatch::cuda {

// DirectiveLinesOf(Tokenize(contents), contents), or nullopt when the file holds something the
// skim does not follow exactly as the lexer does, outside its directives: a raw string, a
// backslash-newline in code or ending a comment or literal, a byte that is not ASCII, a NUL, an
// apostrophe right after a name or number (a digit separator, `u8'c'`). The caller then lexes the
// file whole. Linear in the size of `contents`.
std::optional<std::vector<Token>> DirectiveLineTokens(std::string_view contents);

}  // namespace archpatch::cuda
