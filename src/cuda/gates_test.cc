#include "cuda/gates.h"

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "report/finding.h"

namespace archpatch::cuda {
namespace {

// Verdicts names arches from a table made once: every arch, in and out of the table, keeps
// Arch::name().
TEST(GatesTest, VerdictsNameEveryArchAsArchName) {
  std::vector<arch::Arch> arches = arch::AllArches();
  arches.push_back(arch::Arch{99, 9, arch::Variant::kFamily});  // outside the table
  arches.push_back(arch::Arch{42, 0, arch::Variant::kPlain});   // beyond the name table
  const std::vector<Tri> values(arches.size(), Tri::kTrue);
  const gate::Verdicts verdicts = Verdicts(arches, values);
  ASSERT_EQ(verdicts.size(), arches.size());
  for (size_t a = 0; a < arches.size(); ++a) EXPECT_EQ(verdicts[a].arch, arches[a].name());
  EXPECT_EQ(Verdicts(arches, {Tri::kFalse}).size(), 1u);
}

// `n` functions in the shape of CUTLASS's mma_sm90_gmma*.hpp: each an arch-specific asm body
// under a feature macro, a refusal in its #else.
std::string ManyGatedFunctions(int n) {
  std::string text = "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900\n#define SM90_ENABLED\n#endif\n";
  for (int i = 0; i < n; ++i) {
    text += "struct MMA_" + std::to_string(i) + " {\n  __device__ static void fma(unsigned& d) {\n";
    text += "#if defined(SM90_ENABLED)\n    asm volatile(\"wgmma.fence.sync.aligned;\\n\" : \"+r\"(d));\n";
    text += "#else\n    CUTE_INVALID_CONTROL_PATH(\"needs SM90_ENABLED\");\n#endif\n  }\n};\n";
  }
  return text;
}

// Threads waiting in HelpWhile take parts of a many-branch file's drafting (GateKinds::loops):
// the findings are those of the file scanned alone, field for field, in the same order.
TEST(GatesTest, IdleThreadsSharingTheDraftsChangeNoFinding) {
  const std::string text = ManyGatedFunctions(400);
  std::vector<arch::Arch> arches = {*arch::ParseArch("sm_120")};
  for (const arch::Arch& a : arch::AllArches()) {
    if (a != arches.front()) arches.push_back(a);
  }
  MacroEnv env;
  env.undef_unknown = true;
  const std::vector<Token> tokens = Tokenize(text);
  GateKinds kinds;
  kinds.runtime = false;
  // Slow enough per branch that helpers woken by the loop take parts before the owner is done.
  kinds.wanted = [](const Finding&) {
    std::this_thread::sleep_for(std::chrono::microseconds(50));
    return true;
  };
  Result<CudaGates> alone = ScanCudaGates("mma.hpp", text, tokens, arches, env, kinds);
  ASSERT_TRUE(alone);
  ASSERT_EQ(alone->findings.size(), 801u);  // the macro's #if, then each function's #if and #else

  SharedLoops loops;
  std::atomic<bool> done{false};
  std::vector<std::thread> helpers;
  for (int t = 0; t < 3; ++t) helpers.emplace_back([&] { loops.HelpWhile([&] { return !done.load(); }); });
  kinds.loops = &loops;
  Result<CudaGates> shared = ScanCudaGates("mma.hpp", text, tokens, arches, env, kinds);
  done = true;
  loops.Wake();
  for (std::thread& t : helpers) t.join();
  ASSERT_TRUE(shared);
  EXPECT_GT(loops.helped(), 0u) << "no helper took a part";
  ASSERT_EQ(shared->findings.size(), alone->findings.size());
  for (size_t i = 0; i < alone->findings.size(); ++i) {
    ASSERT_EQ(ToJson(shared->findings[i]), ToJson(alone->findings[i])) << "finding " << i;
  }
}

}  // namespace
}  // namespace archpatch::cuda
