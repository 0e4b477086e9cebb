// When the tokens settle a kernel's verdicts (KernelBody::settled) the audit asks no parse: what
// they say must be what the parses say, and every doubt must still go to the parses.
#include "hazard/empty_kernel.h"

#include <string>

#include <gtest/gtest.h>

#include "hazard/branches.h"
#include "hazard/source.h"

namespace archpatch::hazard {
namespace {

const std::vector<arch::Arch>& Arches() {
  static const std::vector<arch::Arch> arches = {*arch::ParseArch("sm_120"), *arch::ParseArch("sm_80"),
                                                 *arch::ParseArch("sm_90"), *arch::ParseArch("sm_100a")};
  return arches;
}

struct Verdicts {
  KernelBody quick;   // from the tokens
  KernelBody parsed;  // from libclang's parses, as the audit confirms with them
};

std::vector<Branch> BranchesOf(const std::string& text, const ParsedSource& source) {
  cuda::MacroEnv env;
  env.undef_unknown = true;
  return FindBranches(text, source.tokens, Arches(), env);
}

// Whether the tokens settle the one kernel of `text` with a branch in its body.
bool Settled(const std::string& text) {
  const ParsedSource source = LexSource(text);
  std::vector<KernelBody> quick = QuickKernels(text, source, BranchesOf(text, source), Arches().size());
  EXPECT_EQ(quick.size(), 1u);
  return quick.size() == 1 && quick[0].settled;
}

// The same kernel read both ways.
Verdicts Read(const std::string& text) {
  const ParsedSource source = LexSource(text);
  const std::vector<Branch> branches = BranchesOf(text, source);
  std::vector<KernelBody> quick = QuickKernels(text, source, branches, Arches().size());
  EXPECT_EQ(quick.size(), 1u);
  const std::string host_bytes = HostParseBytes(text, source);
  Result<ParsedSource> host = Parse("t.cu", host_bytes);
  EXPECT_TRUE(host.ok());
  std::vector<KernelBody> parsed = AnalyzeKernels("t.cu", host_bytes, *host, branches, Arches());
  EXPECT_EQ(parsed.size(), 1u);
  if (quick.size() != 1 || parsed.size() != 1) return {};
  return {quick[0], parsed[0]};
}

constexpr Tri T = Tri::kTrue, F = Tri::kFalse;

TEST(SettledKernel, AWhollyGatedBodyIsSettledAsTheParsesSayIt) {
  // FlashInfer's allreduce kernels: the whole body behind one gate, calls and assignments inside.
  const Verdicts v = Read(R"(
template <typename T> __device__ T twice(T x) { return x + x; }
__global__ void k(float* out, int n) {
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 900) && (__CUDA_ARCH__ < 1200)
  int i = threadIdx.x;
  out[i] = twice<float>(out[i]);
#endif
}
)");
  EXPECT_TRUE(v.quick.settled);
  EXPECT_EQ(v.quick.has_code, (std::vector<Tri>{F, F, T, T}));
  EXPECT_EQ(v.quick.has_code, v.parsed.has_code);
  // A call of the file's function template alone is code too.
  const Verdicts call = Read(R"(
template <int N> __device__ void impl(float* out) { out[N] = 1.f; }
__global__ void k(float* out) {
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 1000)
  impl<3>(out);
#endif
}
)");
  EXPECT_TRUE(call.quick.settled);
  EXPECT_EQ(call.quick.has_code, (std::vector<Tri>{T, F, F, T}));
  EXPECT_EQ(call.quick.has_code, call.parsed.has_code);
}

TEST(SettledKernel, DoubtsGoToTheParses) {
  // Only declarations survive on the target: whether they compile to code is the parse's to say.
  EXPECT_FALSE(Settled(R"(
__global__ void k(float* out) {
  int i = threadIdx.x;
#if __CUDA_ARCH__ >= 900 && __CUDA_ARCH__ < 1200
  out[i] = 1.f;
#endif
}
)"));
  // A name the file #defines may expand to anything.
  EXPECT_FALSE(Settled(R"(
#define STORE(p) p[0] = 1.f
__global__ void k(float* out) {
#if __CUDA_ARCH__ >= 900 && __CUDA_ARCH__ < 1200
  STORE(out);
#endif
}
)"));
  // The kernel itself behind a branch: on an arch that skips it there is no kernel to be empty.
  EXPECT_FALSE(Settled(R"(
#if __CUDA_ARCH__ >= 800
__global__ void k(float* out) {
#if __CUDA_ARCH__ >= 900 && __CUDA_ARCH__ < 1200
  out[0] = 1.f;
#endif
}
#endif
)"));
}

// A lambda's statements belong to the declaration of the lambda: a parse finds no code in this
// body on any arch, where the tokens alone see `out[0] = v`.
TEST(SettledKernel, CodeOnlyInsideALambdaIsNotPlain) {
  const Verdicts v = Read(R"(
__global__ void k(float* out) {
#if __CUDA_ARCH__ >= 900 && __CUDA_ARCH__ < 1200
  auto store = [&](float v) { out[0] = v; };
#endif
}
)");
  EXPECT_FALSE(v.quick.settled);
  EXPECT_EQ(v.quick.has_code[2], T);
  EXPECT_EQ(v.parsed.has_code, (std::vector<Tri>{F, F, F, F}));
}

TEST(SettledKernel, AKernelWithTwoHeadsIsPlacedAtTheOneTheHostReads) {
  // FlashInfer's quantization.cuh: `__launch_bounds__` for one arch range, the plain head else.
  const std::string text =
      "__global__ void\n"
      "#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 1000)\n"
      "__launch_bounds__(512, 4) quantize(\n"
      "#else\n"
      "quantize(\n"
      "#endif\n"
      "    float* out) {\n"
      "#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 1000)\n"
      "  out[0] = 1.f;\n"
      "#endif\n"
      "}\n";
  const Verdicts v = Read(text);
  EXPECT_TRUE(v.quick.settled);
  EXPECT_EQ(v.quick.line, 5);
  EXPECT_EQ(v.quick.column, 1);
  EXPECT_EQ(v.quick.line, v.parsed.line);
  EXPECT_EQ(v.quick.column, v.parsed.column);
  EXPECT_EQ(v.quick.has_code, v.parsed.has_code);
}

}  // namespace
}  // namespace archpatch::hazard
