// The prefilters may only skip what the full recogniser would not report: each shape of
// docs/python-gates.md must pass them, and a skipped string must hold no arch the full path reads.
#include "python/prefilter.h"

#include <gtest/gtest.h>

#include "python/recognizer.h"
#include "python/scanner.h"
#include "python/verdict.h"

namespace archpatch::python {
namespace {

// Whether the prefilter passes the (only) logical line of `src`.
bool LinePasses(std::string_view src) {
  Result<std::vector<Token>> tokens = Tokenize("x.py", src);
  EXPECT_TRUE(tokens.ok());
  if (!tokens.ok()) return false;
  const TokenStream ts = MakeStream(src, std::move(*tokens));
  const std::vector<LogicalLine> lines = SplitLines(ts);
  EXPECT_EQ(lines.size(), 1u) << src;
  return !lines.empty() && MayHoldComparison(ts, lines.front());
}

TEST(PythonPrefilter, EveryComparisonShapeHoldsAnOperator) {
  for (std::string_view src :
       {"x = major >= 10\n", "x = major not in (9, 10)\n", "x = get_device_capability()[0] == 10\n",
        "x = capability == (9, 0)\n", "x = arch >= (10, 0)\n", "x = cap in [(9, 0), (10, 0)]\n",
        "x = cap[0] in [11, 12]\n", "x = sm_version != 'sm_120'\n", "x = backend in ('120', '121')\n",
        "x = 10 <= major\n", "x = (9, 0) < cap\n", "x = cc > 90\n", "x = major == 12 and minor == 0\n",
        "x = arch // 10 in [10, 11]\n", "x = (major,\n     minor) <= (9,\n 0)\n"}) {
    EXPECT_TRUE(LinePasses(src)) << src;
  }
}

TEST(PythonPrefilter, LinesWithoutAnOperatorAreSkipped) {
  EXPECT_FALSE(LinePasses("x = get_device_capability()\n"));
  EXPECT_FALSE(LinePasses("flags(supported_major_versions=[9, 10])\n"));
  EXPECT_FALSE(LinePasses("s = 'major >= 10 in x'\n"));  // inside a string: no operator token
  EXPECT_FALSE(LinePasses("x = a is not None\n"));       // `is` compares no capability
}

// A comparison the prefilter passes is still found by the scan: the filter sits in front of it.
TEST(PythonPrefilter, ComparisonsAreStillReported) {
  const auto arches = *arch::ParseArchList("sm_90,sm_120");
  Result<std::vector<Finding>> f = ScanPython("x.py",
                                              "major, minor = torch.cuda.get_device_capability()\n"
                                              "if major in [9, 10]:\n    pass\n"
                                              "if 10 <= major:\n    pass\n"
                                              "if major == 12 and minor == 0:\n    pass\n",
                                              arches);
  ASSERT_TRUE(f.ok());
  ASSERT_EQ(f->size(), 3u);
  EXPECT_EQ((*f)[0].python()->shape, "comparison");
  EXPECT_EQ((*f)[1].python()->shape, "comparison");
  EXPECT_EQ((*f)[2].python()->shape, "condition");
}

// What FindArchStrings would make of a string: a finding of some shape or none.
bool FullPathReads(std::string_view body, bool arch_list_line) {
  const std::string text(body);
  if (!NvccArchTargets(text).empty()) return true;
  const bool strict = text.starts_with("sm_") || text.starts_with("compute_");
  if (strict && arch::ReadArchName(text)) return true;
  return arch_list_line && text.find('.') != std::string::npos && ParseArchListString(text).has_value();
}

TEST(PythonPrefilter, SkippedStringsHoldNoArch) {
  for (std::string_view body : {"-gencode=arch=compute_90a,code=sm_90a",
                                "-arch=sm_100a",
                                "--gpu-architecture=compute_120",
                                "--gpu-code=sm_90",
                                "code=sm_80",
                                "sm_100a",
                                "compute_90",
                                "sm_120f",
                                "8.0 9.0a;10.0+PTX",
                                "9.0",
                                "12.0a",
                                "120",
                                "sm120",
                                "SM_90",
                                "Sm_90a",
                                "90a",
                                "10.0+ptx",
                                "+PTX",
                                "sm_",
                                "arch",
                                "",
                                "hello",
                                "compute_120a",
                                "-DARCH=90",
                                "12.8",
                                "sm_90 sm_100"}) {
    for (bool arch_list_line : {false, true}) {
      if (FullPathReads(body, arch_list_line)) {
        EXPECT_TRUE(MayNameArch(body, arch_list_line)) << body;
      }
    }
  }
}

TEST(PythonPrefilter, PlainStringsAreSkipped) {
  EXPECT_FALSE(MayNameArch("hello world", true));
  EXPECT_FALSE(MayNameArch("120", false));
  EXPECT_FALSE(MayNameArch("9.0", false));
  EXPECT_TRUE(MayNameArch("9.0", true));
}

// IsCarrierName as it was written first: lower a copy, then look for each ending in turn.
bool CarrierByCopy(std::string_view name) {
  const std::string lower = LowerText(name);
  if (lower.find("flags") != std::string::npos) return false;
  for (std::string_view e : {"major_versions", "majors", "archs", "arches", "arch_list", "capabilities", "sm_versions",
                             "compute_capability_list", "ccs"}) {
    if (lower.ends_with(e)) return true;
  }
  return false;
}

TEST(PythonPrefilter, CarrierNamesAsByALoweredCopy) {
  std::vector<std::string> names = {"",
                                    "s",
                                    "cs",
                                    "ccs",
                                    "CCS",
                                    "accs",
                                    "x_ccs",
                                    "sm_versions",
                                    "SM_Versions",
                                    "major_versions",
                                    "majors",
                                    "MAJORS",
                                    "archs",
                                    "arches",
                                    "Arches",
                                    "arch_list",
                                    "TORCH_CUDA_ARCH_LIST",
                                    "cuda_arch_list",
                                    "capabilities",
                                    "supported_capabilities",
                                    "compute_capability_list",
                                    "supported_archs",
                                    "arch_flags_list",
                                    "nvcc_flags_archs",
                                    "FLAGS_archs",
                                    "args",
                                    "list",
                                    "inputs",
                                    "versions",
                                    "is",
                                    "dict",
                                    "arch_lis",
                                    "archs_",
                                    "arches2",
                                    "sm_version",
                                    "capabilitiess",
                                    "majorss",
                                    std::string("a\x80") + "chs"};
  for (std::string_view e : {"majors", "archs", "arch_list", "ccs", "sm_versions"}) {
    names.push_back("x" + std::string(e));
    names.push_back(std::string(e.substr(1)));  // its first byte missing
  }
  for (const std::string& name : names) EXPECT_EQ(IsCarrierName(name), CarrierByCopy(name)) << name;
}

TEST(PythonPrefilter, CaseBlindCompares) {
  EXPECT_TRUE(EndsWithLower("TORCH_CUDA_ARCH_LIST", "arch_list"));
  EXPECT_FALSE(EndsWithLower("list", "arch_list"));
  EXPECT_TRUE(ContainsLower("TORCH_CUDA_ARCH_LIST", "cuda_arch"));
  EXPECT_TRUE(ContainsLower("my_arch_list_here", "arch_list"));  // anchored at its '_'
  EXPECT_TRUE(ContainsLower("_arch_list", "arch_list"));
  EXPECT_FALSE(ContainsLower("arch_lis", "arch_list"));
  EXPECT_FALSE(ContainsLower("rch_list__", "arch_list"));
  EXPECT_TRUE(ContainsLower("NVCC_FLAGS", "flags"));  // no anchor: compared at every byte
  EXPECT_FALSE(ContainsLower("flag", "flags"));
}

}  // namespace
}  // namespace archpatch::python
