// The skip rule of runtime_relevance.h against the parse it saves: a file it skips gets the
// same findings as when parsed, and the forms it must keep still parse and give their findings.
#include "cuda/runtime_relevance.h"

#include <gtest/gtest.h>

#include "cuda/runtime_gates.h"
#include "report/finding.h"

namespace archpatch::cuda {
namespace {

std::vector<Token> Lex(const std::string& text) { return Tokenize(text); }

// The spelling of every name the walk may read.
std::vector<std::string> Readable(const std::string& text) {
  std::vector<std::string> out;
  const std::vector<Token> tokens = Lex(text);
  for (size_t offset : ReadableCapabilityNames(text, tokens)) {
    auto t = std::find_if(tokens.begin(), tokens.end(), [&](const Token& k) { return k.begin == offset; });
    out.emplace_back(t == tokens.end() ? "?" : t->Spelling(text));
  }
  return out;
}

std::string Report(const std::string& text, RuntimeParse parse) {
  Result<std::vector<Finding>> found = FindRuntimeGates("r.cc", text, arch::AllArches(), Lex(text), parse);
  EXPECT_TRUE(found.ok());
  std::string out;
  for (const Finding& f : found.ok() ? *found : std::vector<Finding>{}) out += ToJson(f).dump() + "\n";
  return out;
}

// The findings are those of a parse wherever a capability is named: skipping lost nothing.
void ExpectSameAsParsed(const std::string& text) {
  EXPECT_EQ(Report(text, RuntimeParse::kWhereReadable), Report(text, RuntimeParse::kWhereNamed)) << text;
}

using Names = std::vector<std::string>;

// What libclang parses of the file.
std::string Reduced(const std::string& text) {
  const std::vector<Token> tokens = Lex(text);
  return BlankIrrelevantBodies(text, tokens, ReadableCapabilityNames(text, tokens));
}

TEST(RuntimeRelevance, CutlassScopesTypesAndTemplateArgumentsNeedNoParse) {
  const std::string text = R"(namespace cutlass { namespace arch {
struct Sm90 { static constexpr int kMinComputeCapability = 90; };
} }
namespace cute { namespace UMMA { enum class Major : unsigned char { K = 0, MN = 1 }; } }
template <cute::UMMA::Major> struct smem_desc {};
template <class Element, cute::UMMA::Major tnspA, cute::UMMA::Major tnspB, class Arch = cutlass::arch::Sm90>
struct CollectiveMma {
  using ArchTag = cutlass::arch::Sm90;
  static constexpr bool kKMajorA = tnspA == cute::UMMA::Major::K;
  static_assert(Arch::kMinComputeCapability >= 90, "sm90 collective");
  void load() {
    if constexpr (tnspB == cute::UMMA::Major::MN) {
      arch::cp_async_wait<0>();
    }
  }
};
)";
  EXPECT_EQ(Readable(text), Names{});
  ExpectSameAsParsed(text);
}

TEST(RuntimeRelevance, CapabilityReadsOutsideChecksNeedNoParse) {
  const std::string text = R"(inline int DeviceSm(int dev) {
  int sm_major = 0, sm_minor = 0;
  cudaDeviceGetAttribute(&sm_major, cudaDevAttrComputeCapabilityMajor, dev);
  cudaDeviceGetAttribute(&sm_minor, cudaDevAttrComputeCapabilityMinor, dev);
  return sm_major * 10 + sm_minor;
}
void Launch(int sm_major, char* raw) {
  const bool use_tma = sm_major >= 9;
  auto sm = SharedStorage::init(raw);
  mbarrier_init(sm.full_barrier, 1);
  if (sm_major >= 9) {
    launch_tma(use_tma);
  } else {
    launch_cp_async();
  }
  switch (sm_major) { case 9: break; default: break; }
}
)";
  EXPECT_EQ(Readable(text), Names{});
  ExpectSameAsParsed(text);
}

TEST(RuntimeRelevance, CheckBuiltByAMacroOfTheFileIsParsed) {
  // Only clang sees this one: the `if` comes from the macro's expansion.
  const std::string text =
      "#define RETURN_FALSE_UNLESS(cond) if (!(cond)) return false\n"
      "bool SupportsFp8(int major) {\n  RETURN_FALSE_UNLESS(major >= 9);\n  return true;\n}\n";
  EXPECT_EQ(Readable(text), Names{"major"});
  EXPECT_NE(Report(text, RuntimeParse::kWhereReadable).find("\"text\":\"RETURN_FALSE_UNLESS(major >= 9)\""),
            std::string::npos);
  ExpectSameAsParsed(text);
}

TEST(RuntimeRelevance, RefusalsAndCheckMacrosAreParsed) {
  for (const std::string text : {
           // a throw after logging, in a block
           "void Init(const cudaDeviceProp& props) {\n  if (props.major < 9) {\n    LOG_WARNING(\"old GPU\");\n"
           "    throw std::runtime_error(\"needs sm90\");\n  }\n}\n",
           // a predicate's early return
           "bool IsSupported(int major) {\n  if (major < 9) return false;\n  return true;\n}\n",
           "void Run(int major) { TVM_FFI_ICHECK_EQ(major, 10) << \"sm100 only\"; }\n",
           "void Run(int sm) { for (int k : {1, 2}) { if (sm < 90) continue; go(k); } }\n",
       }) {
    EXPECT_NE(Readable(text), Names{}) << text;
    EXPECT_NE(Report(text, RuntimeParse::kWhereReadable), "") << text;
    ExpectSameAsParsed(text);
  }
}

TEST(RuntimeRelevance, ConstructionsTheWalkReadsAsChecksAreParsed) {
  // The walk names an implicit construction by its first element or its type: these record.
  for (const std::string text : {
           "struct ArchRequirement { ArchRequirement(bool); };\n"
           "void Pick(int major) { ArchRequirement{major >= 9}; }\n",
           "struct Reason { Reason(const char*, bool); };\nvoid Pick(int major) { Reason r{\"check\", major >= 9}; }\n",
       }) {
    EXPECT_NE(Readable(text), Names{}) << text;
    EXPECT_NE(Report(text, RuntimeParse::kWhereReadable), "") << text;
    ExpectSameAsParsed(text);
  }
}

TEST(RuntimeRelevance, UnbalancedBranchesParseAsBefore) {
  // Two `{` for one `}`: statements cannot be told apart, every name outside a scope counts.
  const std::string text =
      "void Launch(int sm) {\n#if defined(ENABLE_FP8)\n  if (sm >= 89) {\n#else\n  if (sm >= 80) {\n#endif\n"
      "    run();\n  }\n}\n";
  EXPECT_EQ(Readable(text), (Names{"sm", "sm", "sm"}));  // the parameter too
  // One '(' closed in both branches: the names after the stray ')' count all the same.
  const std::string stray =
      "void Launch(int sm) {\n  launch(stream,\n#if NEW_API\n      sm, 1);\n#else\n      sm);\n#endif\n"
      "  if (sm >= 90) { fast(); }\n}\n";
  EXPECT_EQ(Readable(stray), (Names{"sm", "sm", "sm", "sm"}));
}

TEST(RuntimeRelevance, MacroBodiesKeepOnlyTheirOwnQualifiedNamesUnread) {
  EXPECT_EQ(Readable("#define SYNCLOG() cutlass::arch::synclog_emit(__LINE__)\nvoid f() { SYNCLOG(); }\n"), Names{});
  // `ns` is an argument: `AT(::)` puts `arch` first.
  EXPECT_EQ(Readable("#define AT(ns) ns::arch::emit()\nvoid f() { AT(cutlass); }\n"), Names{"arch"});
  // First in the body: what stands before it comes from the use (`obj.EMIT`).
  EXPECT_EQ(Readable("#define EMIT arch::emit()\n"), Names{"arch"});
  EXPECT_EQ(Readable("#define MIN_SM(x) (sm >= x)\n"), Names{"sm"});
}

TEST(RuntimeRelevance, BodiesWithOnlyUnreadNamesAreBlanked) {
  const std::string text =
      "__global__ void Kernel() { cutlass::arch::launch_dependent_grids(); }\n"
      "bool Supported(int major) { if (major < 9) return false; return true; }\n";
  const std::string reduced = Reduced(text);
  EXPECT_EQ(reduced.size(), text.size());
  EXPECT_EQ(reduced.find("launch_dependent_grids"), std::string::npos);
  EXPECT_NE(reduced.find("if (major < 9) return false;"), std::string::npos);
  ExpectSameAsParsed(text);
}

TEST(RuntimeRelevance, BodiesWithDirectivesAreBlankedAroundThem) {
  // The kernel's #if and its #define stay for the preprocessor; its code goes.
  const std::string text =
      "__global__ void Kernel(float* out) {\n#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900\n"
      "  asm volatile(\"griddepcontrol.wait;\");\n#define FAST 1\n#else\n#define FAST 0\n#endif\n}\n"
      "bool Supported(int major) { if (major < 9 || !FAST) return false; return true; }\n";
  const std::string reduced = Reduced(text);
  EXPECT_EQ(reduced.find("griddepcontrol"), std::string::npos);
  EXPECT_NE(reduced.find("#define FAST 1\n#else\n#define FAST 0\n#endif\n}"), std::string::npos);
  EXPECT_NE(reduced.find("if (major < 9 || !FAST) return false;"), std::string::npos);
  EXPECT_NE(Report(text, RuntimeParse::kWhereReadable), "");
  ExpectSameAsParsed(text);
}

}  // namespace
}  // namespace archpatch::cuda
