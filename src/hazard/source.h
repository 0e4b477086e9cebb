// Source: one CUDA/C++ file as libclang sees it, for the hazard checks. The raw tokens of the
// whole file (libclang lexes every byte, also inside preprocessor branches the parse skipped),
// the `__global__` kernels and the functions, macros and types the file defines.
//
// libclang's preprocessor evaluates one configuration per parse; `Parse` takes the macros of that
// configuration. Includes are not needed (and not resolved into the token list): the checks only
// look at the file itself.
#pragma once

#include <initializer_list>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "arch/arch.h"
#include "cuda/functions.h"
#include "cuda/tokens.h"
#include "util/result.h"
#include "util/shared_loops.h"

namespace archpatch::hazard {

// The scan's token type (cuda/tokens.h): kind and byte offsets, spelled through the file's bytes.
// One lex of a file serves the gate scan and the hazard checks (FromTokens).
using Token = cuda::Token;

// A function with a body in this file.
struct FunctionDef {
  std::string name;
  size_t body_begin = 0, body_end = 0;  // the braces included
  int line = 0, column = 0;
  bool is_kernel = false;  // carries __global__ (CXCursor_CUDAGlobalAttr)
  // Statements of the body that compile to nothing of their own in this parse: declarations,
  // returns, null statements (nested blocks are looked into). Byte ranges.
  std::vector<std::pair<size_t, size_t>> trivial_statements;
};

// What one parse found. Everything a check asks per token or per offset is indexed once per file
// here, so the work per gate is proportional to the gate's block, not to the file.
struct ParsedSource {
  std::string_view contents;           // the bytes parsed (the caller's: they must outlive this)
  std::vector<Token> tokens;           // every token of the file, in order
  std::vector<bool> on_directive;      // per token: on a preprocessor directive line
  cuda::LineIndex lines;               // offset -> line, column
  std::vector<FunctionDef> functions;  // with bodies, in file order
  std::map<std::string, std::vector<size_t>, std::less<>> functions_by_name;  // indices into `functions`
  std::map<std::string, std::pair<size_t, size_t>, std::less<>> macros;       // function-like #defines: body bytes
  std::set<std::string, std::less<>> types;        // struct/class/typedef/using/template params
  std::vector<std::pair<size_t, size_t>> skipped;  // ranges the preprocessor skipped, in order

  std::string_view Spelling(const Token& t) const { return t.Spelling(contents); }
  // Whether token `t` lies inside one of the skipped ranges (binary search).
  bool Skipped(const Token& t) const;
};

// Parses `contents` (the bytes of `path`) as CUDA, host side, with `defines` as -D flags
// ("__CUDA_ARCH__=1200"; an entry starting with '-' passes as is: "-UNAME"). `#include` lines are blanked first so
// nothing outside the file is read (the same number of bytes and lines remain). Errors only when libclang cannot parse
// at all.
Result<ParsedSource> Parse(const std::string& path, std::string_view contents,
                           const std::vector<std::string>& defines = {});

// The same from the tokens alone (cuda::Tokenize, no parse: fast enough for every file
// of an audit); FromTokens when the file's tokens are at hand already (the audit's scan lexed it). Functions and
// kernels come from brace matching (cuda/functions.h), macros and type names from token patterns; `trivial_statements`
// and `skipped` stay empty.
ParsedSource LexSource(std::string_view contents);
ParsedSource FromTokens(std::string_view contents, std::vector<Token> tokens);
// The same from what the gate scan built of the file (cuda::CudaGates): its line index over
// `contents`, and its functions when it found them (nullptr: found here).
// With `loops`, its passes may run on idle threads (util/shared_loops.h).
ParsedSource FromScan(std::string_view contents, std::vector<Token> tokens, cuda::LineIndex lines,
                      const cuda::AllFunctions* functions, SharedLoops* loops = nullptr);

// The -D flags of one device pass of `arch` (arch::DeviceMacros), for Parse.
std::vector<std::string> DeviceDefines(const arch::Arch& arch);

// `contents` with the lines of the named directives ("include", "error") blanked: bytes, line
// numbers and offsets stay as they were.
std::string BlankDirectiveLines(std::string_view contents, std::initializer_list<std::string_view> directives);

// `contents` with every `#include` directive replaced by spaces (newlines kept), so a standalone
// parse or preprocess of the file sees only the file.
std::string BlankIncludes(std::string_view contents);

}  // namespace archpatch::hazard
