#include "python/scanner.h"
#include "report/finding.h"

#include <gtest/gtest.h>

namespace archpatch::python {
namespace {

std::vector<arch::Arch> Arches(std::string_view list = "sm_90,sm_90a,sm_100,sm_103,sm_120,sm_120a,sm_121") {
  return *arch::ParseArchList(list);
}

std::vector<Finding> Scan(std::string_view src,
                          std::string_view arches = "sm_90,sm_90a,sm_100,sm_103,sm_120,sm_120a,sm_121") {
  Result<std::vector<Finding>> r = ScanPython("x.py", src, Arches(arches));
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().str());
  return r.ok() ? *r : std::vector<Finding>{};
}

std::string Bytes(std::string_view src, const Finding& f) {
  return std::string(src.substr(f.span.begin, f.span.end - f.span.begin));
}

// "tttffff": the verdicts in arch order, one letter each.
std::string Letters(const Finding& f) {
  std::string out;
  for (const ArchVerdict& v : f.verdict) out += TriName(v.value)[0];
  return out;
}

TEST(ScanPython, ThreeIdenticalLiteralsAreToldApartByScope) {
  const std::string src =
      "def gen_trtllm_mnnvl_comm_module():\n"
      "    return ctx.get_nvcc_flags_list(supported_major_versions=[9, 10])\n"
      "def gen_mixed_comm_module():\n"
      "    return ctx.get_nvcc_flags_list(supported_major_versions=[9, 10]) + ['-rdc=true']\n"
      "def gen_trtllm_comm_module():\n"
      "    return ctx.get_nvcc_flags_list(supported_major_versions=[9, 10])\n";
  const std::vector<Finding> f = Scan(src);
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f[0].scope, "gen_trtllm_mnnvl_comm_module");
  EXPECT_EQ(f[1].scope, "gen_mixed_comm_module");
  EXPECT_EQ(f[2].scope, "gen_trtllm_comm_module");
  for (const Finding& one : f) {
    EXPECT_EQ(one.text, "supported_major_versions=[9, 10]");
    EXPECT_EQ(Bytes(src, one), "[9, 10]");
    EXPECT_EQ(Letters(one), "ttttfff");
  }
  EXPECT_NE(f[0].span.begin, f[2].span.begin);
}

TEST(ScanPython, FindingCarriesTheJsonContract) {
  const std::string src = "def gen():\n    flags(supported_major_versions=[9, 10])\n";
  const Finding f = Scan(src).at(0);
  EXPECT_EQ(gate::KindName(f.kind), "python-gate");
  EXPECT_EQ(f.line, 2);
  EXPECT_EQ(f.column, 11);
  EXPECT_EQ(f.severity, Severity::kWarning);
  EXPECT_EQ(f.summary, "'supported_major_versions' admits only majors 9, 10: sm_120, sm_121 refused");
  const nlohmann::ordered_json j = ToJson(f);
  EXPECT_EQ(j["shape"], "keyword");
  EXPECT_EQ(j["name"], "supported_major_versions");
  EXPECT_EQ(j["operand"], "major");
  EXPECT_EQ(j["op"], "in");
  EXPECT_EQ(j["values"], nlohmann::ordered_json::parse("[9, 10]"));
  EXPECT_EQ(j["literal_span"]["begin"], f.span.begin);
  EXPECT_EQ(j["verdict"]["sm_120a"], "false");
  EXPECT_FALSE(j.contains("via"));
}

TEST(ScanPython, VerdictsFollowTheOrderOfTheRequestedArches) {
  const Finding f = Scan("x = f(supported_major_versions=[12])\n", "sm_121,sm_90,sm_120a").at(0);
  ASSERT_EQ(f.verdict.size(), 3u);
  EXPECT_EQ(f.verdict[0].arch, "sm_121");
  EXPECT_EQ(f.verdict[1].arch, "sm_90");
  EXPECT_EQ(f.verdict[2].arch, "sm_120a");
  EXPECT_EQ(Letters(f), "tft");
}

TEST(ScanPython, ModuleLevelNamesResolveToTheirDefinition) {
  const std::string src =
      "_KEEP = [9, 10]\n"
      "def gen_a():\n"
      "    return flags(supported_major_versions=_KEEP)\n"
      "def gen_b(major):\n"
      "    return major in _KEEP\n";
  const std::vector<Finding> f = Scan(src);
  ASSERT_EQ(f.size(), 1u);  // `major` in gen_b is a parameter: no known capability
  EXPECT_EQ(ToJson(f[0])["via"][0]["name"], "_KEEP");
  EXPECT_EQ(f[0].scope, "gen_a");
  EXPECT_EQ(f[0].line, 3);
  EXPECT_EQ(Bytes(src, f[0]), "[9, 10]");
  EXPECT_EQ(f[0].span.begin, 8u);
}

TEST(ScanPython, ANameBoundTwiceIsNotResolved) {
  EXPECT_TRUE(Scan("_M = [9]\n_M = [10]\nflags(supported_major_versions=_M)\n").empty());
}

TEST(ScanPython, ScopesFollowDefsClassesAndDecorators) {
  const std::string src =
      "class Runner:\n"
      "    @supported_compute_capability([90, 100])\n"
      "    def run(self):\n"
      "        def inner():\n"
      "            return flags(supported_major_versions=[10])\n"
      "        pick = lambda: flags(supported_major_versions=[9])\n"
      "        return inner\n"
      "flags(supported_major_versions=[12])\n";
  const std::vector<Finding> f = Scan(src);
  ASSERT_EQ(f.size(), 4u);
  EXPECT_EQ(f[0].scope, "Runner.run");
  EXPECT_EQ(ToJson(f[0])["shape"], "compute-capability-list");
  EXPECT_EQ(f[1].scope, "Runner.run.inner");
  EXPECT_EQ(f[2].scope, "Runner.run");  // a lambda opens no scope
  EXPECT_EQ(f[3].scope, "");
}

TEST(ScanPython, CapabilityComparisonsNeedAKnownCapability) {
  const std::string src =
      "import sys, torch\n"
      "def f(major):\n"
      "    a = major >= 10\n"
      "    b = sys.version_info.major >= 3\n"
      "    c = torch.version.cuda >= '12.8'\n"
      "    d = TORCH_MAJOR >= 2\n"
      "    major, minor = torch.cuda.get_device_capability()\n"
      "    return major >= 10\n";
  const std::vector<Finding> f = Scan(src);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].line, 8);
  EXPECT_EQ(ToJson(f[0])["operand"], "major");
  EXPECT_EQ(Letters(f[0]), "ffttttt");
}

TEST(ScanPython, MinorExclusionsBecomeOneCondition) {
  const std::string src =
      "def f():\n"
      "    major, minor = torch.cuda.get_device_capability()\n"
      "    return major == 12 and minor == 0 or major == 9\n";
  const std::vector<Finding> f = Scan(src);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(ToJson(f[0])["shape"], "condition");
  EXPECT_EQ(f[0].text, "major == 12 and minor == 0 or major == 9");
  EXPECT_EQ(Bytes(src, f[0]), f[0].text);
  EXPECT_EQ(Letters(f[0]), "ttffttf");  // sm_120 and sm_120a pass, sm_121 is excluded
  EXPECT_EQ(ToJson(f[0])["values"][1]["operand"], "minor");
}

TEST(ScanPython, ArchNameSemantics) {
  const std::string src =
      "a = ['sm_90a']\n"                                    // the sm_90 chip, in any variant
      "b_archs = ['sm_100f']\n"                             // family: sm_100 and sm_103
      "c = ['-gencode=arch=compute_90,code=compute_90']\n"  // PTX: sm_90 and every newer chip
      "TORCH_CUDA_ARCH_LIST = '9.0a;12.0'\n";
  const std::vector<Finding> f = Scan(src);
  ASSERT_EQ(f.size(), 4u);
  EXPECT_EQ(Letters(f[0]), "ttfffff");
  EXPECT_EQ(ToJson(f[0])["shape"], "arch-string");
  EXPECT_EQ(Letters(f[1]), "ffttfff");
  EXPECT_EQ(ToJson(f[1])["shape"], "assignment");
  EXPECT_EQ(Letters(f[2]), "ttttttt");
  EXPECT_EQ(ToJson(f[2])["shape"], "nvcc-arch-flag");
  EXPECT_EQ(Letters(f[3]), "ttffttf");
}

TEST(ScanPython, PredicatesEvaluateAsTheirLibrariesDefineThem) {
  const std::string src =
      "a = p.has_device_capability(100)\n"
      "b = p.is_device_capability(120)\n"
      "c = p.is_device_capability_family(100)\n"
      "d = is_arch_supported(12)\n";
  const std::vector<Finding> f = Scan(src);
  ASSERT_EQ(f.size(), 4u);
  EXPECT_EQ(Letters(f[0]), "ffttttt");
  EXPECT_EQ(Letters(f[1]), "ffffttf");
  EXPECT_EQ(Letters(f[2]), "ffttfff");
  EXPECT_EQ(Letters(f[3]), "ffffttt");
  EXPECT_EQ(Bytes(src, f[0]), "100");
  EXPECT_EQ(f[0].text, "p.has_device_capability(100)");
}

TEST(ScanPython, UnreadableElementsMakeTheVerdictUnknown) {
  const Finding f = Scan("flags(supported_major_versions=[9, EXTRA_MAJOR])\n").at(0);
  EXPECT_EQ(TriName(f.VerdictFor("sm_90")), "true");
  EXPECT_EQ(TriName(f.VerdictFor("sm_120")), "unknown");
  EXPECT_EQ(f.severity, Severity::kInfo);
  EXPECT_EQ(ToJson(f)["values"], nlohmann::ordered_json::parse("[9, null]"));
}

TEST(ScanPython, NoneMeansNoRestriction) { EXPECT_TRUE(Scan("flags(supported_major_versions=None)\n").empty()); }

TEST(ScanPython, SpansAreFileOffsetsWithBomAndCrlf) {
  const std::string src = "\xEF\xBB\xBF# c\r\ndef f():\r\n    return g(supported_major_versions=(9, 10,))\r\n";
  const Finding f = Scan(src).at(0);
  EXPECT_EQ(Bytes(src, f), "(9, 10,)");
  EXPECT_EQ(f.line, 3);
  EXPECT_EQ(f.column, 14);
}

TEST(ScanPython, TextInStringsCommentsAndDocstringsIsNeverCode) {
  const std::string src =
      "\"\"\"supported_major_versions=[9, 10] and 'sm_90a'\"\"\"\n"
      "# supported_major_versions=[9, 10]\n"
      "x = 'supported_major_versions=[9, 10]'\n"
      "y = f\"{'sm_90a'} {f'{major >= 10}'}\"\n"
      "def f():\n"
      "    '''major, minor = torch.cuda.get_device_capability()'''\n"
      "    return major >= 10\n";
  EXPECT_TRUE(Scan(src).empty());
}

TEST(ScanPython, InvalidPythonIsAnErrorWithAPlace) {
  Result<std::vector<Finding>> r = ScanPython("bad.py", "def f():\n    x = [9, 10\n", Arches());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().str(), "bad.py:2:9: '[' was never closed");
}

}  // namespace
}  // namespace archpatch::python
