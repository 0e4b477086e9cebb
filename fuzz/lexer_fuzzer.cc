// libFuzzer target for the C++ lexer (cuda::Tokenize): never crash, hang or read out of bounds;
// tokens in order, non-empty, inside the file; lexed in pieces and joined (cuda/token_pieces.h),
// the same tokens; and on ASCII input the same tokens as libclang's (the lexer it replaced). Input
// with non-ASCII bytes or a `\u` or `\U` escape is only checked for the invariants: a character
// that starts a token is read as a name by a coarser rule than clang's XID_Start table
// (tokens.h). The directive skim (cuda/directive_lines.h), where it answers, gives the directive
// lines of those tokens.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "cuda/clang_lexer_oracle.h"
#include "cuda/directive_lines.h"
#include "cuda/directives.h"
#include "cuda/token_pieces.h"
#include "cuda/tokens.h"

namespace {

archpatch::cuda::ClangLexerOracle& Oracle() {
  static archpatch::cuda::ClangLexerOracle oracle;
  return oracle;
}

}  // namespace

// libclang is loaded and its first unit parsed here, outside libFuzzer's per-input timeout: the
// dlopen of libclang and libLLVM once took over 5 s on a loaded CI machine and was reported as
// the empty input's timeout. libFuzzer installs its crash handlers after this function; libclang's
// crash recovery, enabled first, would put the default ones back on a crash (the process died
// of SIGILL with no report and no crash file): it is turned off.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  ::setenv("LIBCLANG_DISABLE_CRASH_RECOVERY", "1", /*overwrite=*/1);
  (void)Oracle().Tokenize("int x;\n");
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view src(reinterpret_cast<const char*>(data), size);
  const std::vector<archpatch::cuda::Token> tokens = archpatch::cuda::Tokenize(src);
  size_t last = 0;
  for (const archpatch::cuda::Token& t : tokens) {
    if (t.begin < last || t.end <= t.begin || t.end > src.size()) __builtin_trap();
    last = t.end;
  }
  // Lexed in pieces from line starts and joined (the largest files lexed ahead): the same tokens.
  std::vector<archpatch::cuda::TokenPiece> pieces;
  const size_t count = 1 + size % 7;
  for (size_t k = 0; k < count; ++k) pieces.push_back(archpatch::cuda::LexPiece(src, k, count));
  const std::vector<archpatch::cuda::Token> joined = archpatch::cuda::JoinPieces(src, std::move(pieces));
  if (joined.size() != tokens.size()) __builtin_trap();
  for (size_t i = 0; i < joined.size(); ++i) {
    if (joined[i].kind != tokens[i].kind || joined[i].begin != tokens[i].begin || joined[i].end != tokens[i].end)
      __builtin_trap();
  }
  if (const auto skimmed = archpatch::cuda::DirectiveLineTokens(src)) {
    const std::vector<archpatch::cuda::Token> lines = archpatch::cuda::DirectiveLinesOf(tokens, src);
    if (skimmed->size() != lines.size()) __builtin_trap();
    for (size_t i = 0; i < lines.size(); ++i) {
      if ((*skimmed)[i].begin != lines[i].begin || (*skimmed)[i].end != lines[i].end) __builtin_trap();
    }
  }
  for (size_t i = 0; i < src.size(); ++i) {
    if (static_cast<unsigned char>(src[i]) >= 0x80) return 0;
    if (src[i] == '\\' && i + 1 < src.size() && (src[i + 1] == 'u' || src[i + 1] == 'U')) return 0;
  }
  const std::vector<archpatch::cuda::Token> want = Oracle().Tokenize(src);
  if (want.size() != tokens.size()) __builtin_trap();
  for (size_t i = 0; i < want.size(); ++i) {
    if (want[i].kind != tokens[i].kind || want[i].begin != tokens[i].begin || want[i].end != tokens[i].end) {
      __builtin_trap();
    }
  }
  return 0;
}
