#include "python/widen.h"

#include <gtest/gtest.h>

#include "python/scanner.h"

namespace archpatch::python {
namespace {

// Scans `src`, widens its first finding for `targets`, and returns the new literal text (or
// "error: ..." when WidenLiteral refuses).
std::string Widen(const std::string& src, std::string_view targets = "sm_120", AddMode mode = AddMode::kMajor) {
  const std::vector<arch::Arch> arches = *arch::ParseArchList(targets);
  Result<std::vector<Finding>> found = ScanPython("w.py", src, arches);
  if (!found.ok() || found->empty()) return "no finding";
  Result<std::string> r = WidenLiteral(src, found->front(), arches, mode);
  return r.ok() ? *r : "error: " + r.error().str();
}

std::string Kw(const std::string& literal) { return "f(supported_major_versions=" + literal + ")\n"; }

TEST(WidenLiteral, MajorListsKeepTheirSpacing) {
  EXPECT_EQ(Widen(Kw("[9, 10]")), "[9, 10, 12]");
  EXPECT_EQ(Widen(Kw("[9,10]")), "[9,10,12]");
  EXPECT_EQ(Widen(Kw("[ 9 , 10 ]")), "[ 9 , 10 , 12 ]");
  EXPECT_EQ(Widen(Kw("[10]")), "[10, 12]");
}

TEST(WidenLiteral, TuplesSetsAndTrailingCommas) {
  EXPECT_EQ(Widen(Kw("(9, 10)")), "(9, 10, 12)");
  EXPECT_EQ(Widen(Kw("(10,)")), "(10, 12,)");
  EXPECT_EQ(Widen(Kw("{9, 10}")), "{9, 10, 12}");
  EXPECT_EQ(Widen(Kw("[9, 10,]")), "[9, 10, 12,]");
}

TEST(WidenLiteral, OneEntryPerMajorWhateverTheTargets) {
  EXPECT_EQ(Widen(Kw("[9, 10]"), "sm_120,sm_121,sm_120a"), "[9, 10, 12]");
  EXPECT_EQ(Widen(Kw("[9, 10]"), "sm_110,sm_120"), "[9, 10, 11, 12]");
}

TEST(WidenLiteral, AlreadyIncludedGivesTheSameText) {
  EXPECT_EQ(Widen(Kw("[9, 10, 12]")), "[9, 10, 12]");
  EXPECT_EQ(Widen("a_archs = ['sm_120a']\n", "sm_120"), "['sm_120a']");
}

TEST(WidenLiteral, MultiLineLiteralsGetANewLineWithTheSameIndentation) {
  EXPECT_EQ(Widen(Kw("[\n    9,\n    10,\n]")), "[\n    9,\n    10,\n    12,\n]");
  EXPECT_EQ(Widen(Kw("[\n    9,\n    10\n]")), "[\n    9,\n    10,\n    12\n]");
  EXPECT_EQ(Widen(Kw("[\r\n\t9,\r\n\t10,  # why\r\n]")), "[\r\n\t9,\r\n\t10,\r\n\t12,  # why\r\n]");
}

TEST(WidenLiteral, CapabilityPairs) {
  const std::string src =
      "def f():\n    cap = torch.cuda.get_device_capability()\n    return cap in [(9, 0), (10, 0)]\n";
  EXPECT_EQ(Widen(src, "sm_120", AddMode::kCapability), "[(9, 0), (10, 0), (12, 0)]");
  EXPECT_EQ(Widen(src, "sm_120,sm_121", AddMode::kCapability), "[(9, 0), (10, 0), (12, 0), (12, 1)]");
  const std::string tight = "device_capabilities = [(9,0)]\n";
  EXPECT_EQ(Widen(tight, "sm_120", AddMode::kCapability), "[(9,0),(12,0)]");
}

TEST(WidenLiteral, ComputeCapabilityIntegers) {
  EXPECT_EQ(Widen("@supported_compute_capability([80, 90, 100])\ndef f():\n    pass\n", "sm_120,sm_121"),
            "[80, 90, 100, 120, 121]");
}

TEST(WidenLiteral, ArchStringsKeepQuotesAndForm) {
  EXPECT_EQ(Widen("admissible_archs = [\"sm_90a\", \"sm_100a\"]\n"), "[\"sm_90a\", \"sm_100a\", \"sm_120a\"]");
  EXPECT_EQ(Widen("admissible_archs = ['sm_90', 'sm_100']\n"), "['sm_90', 'sm_100', 'sm_120']");
  EXPECT_EQ(Widen("admissible_archs = ['sm_90a']\n", "sm_120f"), "['sm_90a', 'sm_120f']");
  EXPECT_EQ(Widen("cuda_archs = ('9.0a', '10.0a')\n"), "('9.0a', '10.0a', '12.0a')");
  EXPECT_EQ(Widen("if backend in (\"100\", \"103\"):\n    pass\n", "sm_120,sm_121"),
            "(\"100\", \"103\", \"120\", \"121\")");
}

TEST(WidenLiteral, ArchListStrings) {
  EXPECT_EQ(Widen("TORCH_CUDA_ARCH_LIST = \"8.0 9.0a\"\n"), "\"8.0 9.0a 12.0\"");
  EXPECT_EQ(Widen("TORCH_CUDA_ARCH_LIST = '9.0a;10.0a'\n", "sm_121"), "'9.0a;10.0a;12.1a'");
}

TEST(WidenLiteral, ThroughAModuleLevelName) {
  const std::string src = "_KEEP = [9, 10]\ndef gen():\n    return f(supported_major_versions=_KEEP)\n";
  EXPECT_EQ(Widen(src), "[9, 10, 12]");
}

TEST(WidenLiteral, EmptyLiteralsFollowTheMode) {
  EXPECT_EQ(Widen(Kw("[]")), "no finding");  // an empty carrier says nothing about arches
  const std::vector<arch::Arch> targets = *arch::ParseArchList("sm_120");
  const std::string src = "x = ()\n";
  Finding f;
  f.span = {4, 6};
  gate::PythonForm form;
  form.shape = "assignment";
  f.form = form;
  EXPECT_EQ(*WidenLiteral(src, f, targets, AddMode::kCapability), "((12, 0),)");
  EXPECT_EQ(*WidenLiteral(src, f, targets, AddMode::kMajor), "(12,)");
}

TEST(WidenLiteral, RefusesWhatIsNoList) {
  const std::string cmp = "def f():\n    major, minor = torch.cuda.get_device_capability()\n    return major >= 10\n";
  EXPECT_EQ(Widen(cmp),
            "error: w.py:3:12: '10' (comparison gate) is a single value, not a list: widen it with a text edit");
  const std::string cond =
      "def f():\n    major, minor = torch.cuda.get_device_capability()\n    return major == 12 and minor == 0\n";
  EXPECT_NE(Widen(cond).find("(condition gate) is a single value"), std::string::npos);
  EXPECT_EQ(Widen(Kw("[9, 10]"), "sm_120", AddMode::kCapability),
            "error: w.py:1:3: '[9, 10]' holds majors; the rule asks to add a (major, minor) capability");
  Finding outside;
  outside.span = {5, 500};
  EXPECT_FALSE(WidenLiteral("x = [9]\n", outside, {}, AddMode::kMajor).ok());
}

}  // namespace
}  // namespace archpatch::python
