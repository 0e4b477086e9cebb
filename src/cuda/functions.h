// Where functions are, from libclang's tokens alone (no parse): the `__global__` kernels a gated
// block declares, and the function a gate sits in (Finding::scope). Brace matching on tokens
// is exact about comments and strings; it reads `name(...) {` as a function body, which is the
// shape of CUDA/C++ definitions and of nothing else at statement level apart from control flow,
// which it excludes.
#pragma once

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
  std::string name;  // as written before '(' ("run", "Sm90Gemm::run", "operator()")
  size_t begin = 0;  // '{'
  size_t end = 0;    // one past '}' (the file's end when unbalanced)
  int parent = -1;   // the innermost body holding this one (index into the same list), -1: none
};

// Function bodies, outer before inner (a lambda body is not one: it belongs to its function).
std::vector<FunctionBody> FindFunctionBodies(const std::vector<Token>& tokens, std::string_view contents);

// The innermost body holding `offset`, or "" outside every function. `bodies` as
// FindFunctionBodies returns them; O(log bodies + nesting depth).
std::string EnclosingFunction(const std::vector<FunctionBody>& bodies, size_t offset);

}  // namespace archpatch::cuda
