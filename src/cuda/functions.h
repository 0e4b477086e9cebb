// Where functions are, from the file's tokens alone (no parse): the `__global__` kernels a gated
// block declares, and the function a gate sits in (Finding::scope). Brace matching on tokens
// is exact about comments and strings; it reads `name(...) {` as a function body, which is the
// shape of CUDA/C++ definitions and of nothing else at statement level apart from control flow,
// which it excludes.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cuda/tokens.h"

namespace archpatch::cuda {

struct KernelDecl {
  std::string name;
  size_t offset = 0;  // of the `__global__` token
};

// Every `__global__` function declared or defined in the file, in file order.
std::vector<KernelDecl> FindKernels(const std::vector<Token>& tokens, std::string_view contents);

struct FunctionBody {
  // As written before '(' ("run", "Sm90Gemm::run"). With `scopes` (FindFunctionBodies) also
  // operators ("operator()", "operator bool"), the classes a body is defined in
  // ("Outer::Inner::run"), and lambdas: the enclosing function's name and the variable the lambda
  // initialises, or "lambda" ("Gemm::run::pick").
  std::string name;
  size_t begin = 0;  // '{'
  size_t end = 0;    // one past '}' (the file's end when unbalanced)
  int parent = -1;   // the innermost body holding this one (index into the same list), -1: none
};

// Function bodies, outer before inner. `scopes`: every place a selector can name (the scope of
// findings, rules' `scope`): operators, lambdas, names qualified by their classes. Without it, as
// the hazard checks read code: named functions only, a lambda's code belongs to its function.
std::vector<FunctionBody> FindFunctionBodies(const std::vector<Token>& tokens, std::string_view contents,
                                             bool scopes = false);

// Both from one filtering of the tokens, for a caller that needs both (a gated file's scan, the
// hazard checks): FindKernels and FindFunctionBodies each filter the file's tokens again.
struct FileFunctions {
  std::vector<KernelDecl> kernels;
  std::vector<FunctionBody> bodies;
};
FileFunctions FindKernelsAndBodies(const std::vector<Token>& tokens, std::string_view contents, bool scopes = false);

// Everything the gate scan and the hazard checks both read, from one filtering of the tokens and
// one walk over the braces: the kernels, the bodies with `scopes` (where findings are) and those
// without (the functions the hazard checks follow calls into). The audit finds them once per
// gated file (cuda::CudaGates::functions) and hands them on (hazard::FromScan).
struct AllFunctions {
  std::vector<KernelDecl> kernels;
  std::vector<FunctionBody> scoped;  // FindFunctionBodies(..., /*scopes=*/true)
  std::vector<FunctionBody> plain;   // FindFunctionBodies(..., /*scopes=*/false)
};
AllFunctions FindAllFunctions(const std::vector<Token>& tokens, std::string_view contents);

// The innermost body holding `offset`, or null outside every function. `bodies` as
// FindFunctionBodies returns them; O(log bodies + nesting depth).
const FunctionBody* InnermostBody(const std::vector<FunctionBody>& bodies, size_t offset);

// A file's FindFunctionBodies (without scopes), found at the first question and kept: the
// runtime pass's two readers (its constants, its findings' scopes) ask it of the same file, and
// most files need it for neither.
class LazyBodies {
 public:
  LazyBodies(const std::vector<Token>& tokens, std::string_view contents) : tokens_(tokens), contents_(contents) {}
  const std::vector<FunctionBody>& Get() {
    if (!bodies_) bodies_ = FindFunctionBodies(tokens_, contents_);
    return *bodies_;
  }

 private:
  const std::vector<Token>& tokens_;
  std::string_view contents_;
  std::optional<std::vector<FunctionBody>> bodies_;
};

// The name of InnermostBody, or "" outside every function.
std::string EnclosingFunction(const std::vector<FunctionBody>& bodies, size_t offset);

}  // namespace archpatch::cuda
