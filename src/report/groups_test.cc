// The grouped human report and the `groups` JSON: what a person reads first, what is folded.
#include "report/groups.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <gtest/gtest.h>

#include "report/human.h"
#include "report/json_text.h"

namespace archpatch::report {
namespace {

Finding At(std::string file, int line, std::string text) {
  Finding f;
  f.file = std::move(file);
  f.line = line;
  f.column = 2;
  f.kind = gate::Kind::kCudaGate;
  f.text = std::move(text);
  f.form = gate::DirectiveForm{gate::DirectiveKind::kIf, line, ""};
  return f;
}

std::string Print(const std::vector<Group>& groups, const std::vector<Finding>& findings, HumanOptions o) {
  char* buffer = nullptr;
  size_t size = 0;
  std::FILE* out = open_memstream(&buffer, &size);
  PrintGroups(out, groups, findings, o);
  std::fclose(out);
  std::string text(buffer, size);
  std::free(buffer);
  return text;
}

struct Fixture {
  std::vector<Finding> findings = {At("pkg/a.cuh", 10, "__CUDA_ARCH__ >= 900 && __CUDA_ARCH__ < 1200"),
                                   At("pkg/b.hpp", 38, "defined(__CUDA_ARCH_FEAT_SM90_ALL)"),
                                   At("pkg/b.hpp", 51, "defined(SM90A)"),
                                   At("pkg/b.hpp", 65, "defined(SM90A)"),
                                   At("pkg/c.cuh", 3, "__CUDA_ARCH__ < 800"),
                                   At("pkg/d.cuh", 9, "!defined(__CUDA_ARCH_FEAT_SM90_ALL)")};
  std::vector<Group> groups = {
      {"G1",
       0,
       {},
       gate::ExclusionClass::kFastPath,
       "generic",
       gate::WidenSafety::kSafe,
       {},
       {},
       {},
       "pkg",
       "kernel k"},
      {"G2",
       1,
       {2, 3},
       gate::ExclusionClass::kHardwareExclusive,
       "needs wgmma",
       gate::WidenSafety::kUnsafe,
       {"enables 2"},
       {"wgmma"},
       {},
       "pkg",
       "file b.hpp"},
      {"G3",
       4,
       {},
       gate::ExclusionClass::kLegacy,
       "older only",
       gate::WidenSafety::kSafe,
       {},
       {},
       {},
       "pkg",
       "file c.cuh"},
      {"G4",
       5,
       {},
       gate::ExclusionClass::kRefusal,
       "refuses",
       gate::WidenSafety::kUnknown,
       {},
       {},
       {"rule-a"},
       "pkg",
       "kernel g"},
  };
};

TEST(Groups, RefusalsComeFirstHardwareFoldsLegacyHides) {
  Fixture f;
  std::string text = Print(f.groups, f.findings, {"sm_120", false, false, false, {}});
  const size_t refusal = text.find("pkg/d.cuh:9"), fast = text.find("pkg/a.cuh:10");
  ASSERT_NE(refusal, std::string::npos) << text;
  ASSERT_NE(fast, std::string::npos) << text;
  EXPECT_LT(refusal, fast);
  EXPECT_NE(text.find("[rule rule-a]"), std::string::npos);
  EXPECT_NE(text.find("wgmma: 1 root cause (3 places in 1 file)"), std::string::npos) << text;
  EXPECT_EQ(text.find("pkg/b.hpp:51"), std::string::npos);  // folded into the feature line
  EXPECT_EQ(text.find("pkg/c.cuh"), std::string::npos);     // legacy left out
  EXPECT_NE(text.find("1 not shown"), std::string::npos);
  EXPECT_NE(text.find("archpatch apply --rule rule-a"), std::string::npos);
}

// A feature the chip has but the plain target lacks (cvt.e2m1, setmaxnreg: sm_120a, not sm_120):
// the line says which build runs the code; a root cause that also needs what the variant lacks
// (setmaxnreg + wgmma) has a line of its own, which does not.
TEST(Groups, AFeatureLineNamesTheVariantThatHasIt) {
  Fixture f;
  f.groups[1].features = {"setmaxnreg", "wgmma"};  // no variant: sm_120a lacks wgmma
  for (int k = 0; k < 3; ++k) {
    f.groups.push_back(f.groups[1]);
    f.groups.back().id = "G" + std::to_string(5 + k);
    f.groups.back().places = {};
    f.groups.back().available_on_variant = "sm_120a";
    f.groups.back().features = {k == 0 ? "cvt.e2m1" : "setmaxnreg"};
  }
  const std::string text = Print(f.groups, f.findings, {"sm_120", false, false, false, {}});
  EXPECT_NE(text.find("\n  hardware   cvt.e2m1: 1 root cause (1 place in 1 file), code that sm_120 lacks and "
                      "sm_120a has: build for sm_120a (audit --arch sm_120a)\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\n  hardware   setmaxnreg: 2 root causes (2 places in 1 file), code that sm_120 lacks and "
                      "sm_120a has: build for sm_120a (audit --arch sm_120a)\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\n  hardware   setmaxnreg + wgmma: 1 root cause (3 places in 1 file), code that sm_120 lacks; "
                      "widening cannot help\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\nnext: 3 root causes depend on building for sm_120a (it has their instructions, or their "
                      "gate admits it): "),
            std::string::npos)
      << text;
  const nlohmann::ordered_json groups = GroupsJson(f.groups, f.findings);
  EXPECT_EQ(groups[4]["widen"]["available_on_variant"], "sm_120a");
  EXPECT_FALSE(groups[1]["widen"].contains("available_on_variant"));  // omitted when none

  // Of one set of features, some root causes run on the variant and some not (a table where the
  // variant's hint depends on more than the features): the line counts them.
  f.groups[1].features = {"setmaxnreg"};
  const std::string some = Print(f.groups, f.findings, {"sm_120", false, false, false, {}});
  EXPECT_NE(some.find("\n  hardware   setmaxnreg: 3 root causes (5 places in 1 file), code that sm_120 lacks; "
                      "widening cannot help (2 of them would run built for sm_120a: audit --arch sm_120a)\n"),
            std::string::npos)
      << some;
}

// A path the plain target is refused and its arch-specific build takes (CUTLASS's
// `defined(__CUDA_ARCH_SPECIFIC__)`): the line is tagged with that build, after the rule tag.
TEST(Groups, ALineSaysWhichBuildTakesThePath) {
  Fixture f;
  f.groups[3].admitted_on_variant = "sm_120a";  // the refusal in d.cuh, covered by rule-a
  const std::string text = Print(f.groups, f.findings, {"sm_120", false, false, false, {}});
  EXPECT_NE(text.find("-> kernel g [rule rule-a] [taken when built for sm_120a]\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("taken when built"), text.rfind("taken when built")) << "one line only: " << text;
  EXPECT_NE(text.find("\nnext: 1 root cause depends on building for sm_120a (it has its instructions, or its gate "
                      "admits it): archpatch audit --arch sm_120a shows what is left\n"),
            std::string::npos)
      << text;
  const nlohmann::ordered_json groups = GroupsJson(f.groups, f.findings);
  EXPECT_EQ(groups[3]["admitted_on_variant"], "sm_120a");
  EXPECT_FALSE(groups[0].contains("admitted_on_variant"));  // omitted when none
}

TEST(Groups, EachListsEveryPlaceAndShowAllTheLegacyOnes) {
  Fixture f;
  std::string text = Print(f.groups, f.findings, {"sm_120", true, true, false, {}});
  EXPECT_NE(text.find("pkg/b.hpp:51"), std::string::npos) << text;
  EXPECT_NE(text.find("pkg/c.cuh:3"), std::string::npos);
  EXPECT_NE(text.find("widen: widen-unsafe: enables 2"), std::string::npos);
}

// Root causes on one known-unsafe entry (DeepGEMM's dispatchers: 28 on sm_121) under one line
// that says "do not widen" and why, after those a patch can act on; the others keep their place.
TEST(Groups, RootCausesOfOneKnownUnsafeEntryComeUnderOneDoNotWiden) {
  Fixture f;
  f.findings.push_back(At("pkg/e.cuh", 4, "__CUDA_ARCH__ == 1000"));
  f.groups.push_back(f.groups[3]);
  f.groups.back().id = "G5";
  f.groups.back().root = 6;
  f.groups.back().covered_by = {};
  const gate::KnownUnsafeMark mark{"dispatch", "the GEMM entry points", "they dispatch to SM100 kernels", ""};
  f.groups[0].known_unsafe = mark;  // the fast path of a.cuh
  f.groups.back().known_unsafe = mark;
  f.groups[1].known_unsafe = mark;  // hardware-exclusive: stays in its feature line, counted there
  for (bool each : {false, true}) {
    const std::string text = Print(f.groups, f.findings, {"sm_120", each, false, false, {}});
    const std::string heading =
        "\n  do not widen (2 root causes, 2 places in 2 files): the GEMM entry points, because they dispatch to SM100 "
        "kernels [known-unsafe dispatch]\n";
    const size_t line = text.find(heading);
    ASSERT_NE(line, std::string::npos) << text;
    // Said once for the two under it; the hardware root cause's own line says it only with --each.
    const size_t again = text.find("do not widen", line + heading.size());
    EXPECT_EQ(again,
              each ? text.find("\n      do not widen: the GEMM entry points", text.find("\n  hardware   wgmma:")) + 7
                   : std::string::npos)
        << text;
    EXPECT_EQ(text.find("do not widen"), line + 3) << text;
    EXPECT_LT(text.find("\n  refusal    pkg/d.cuh:9:2:"), line) << text;  // unmarked: first, as before
    const size_t refusal = text.find("\n    refusal    pkg/e.cuh:4:2:"),
                 fast = text.find("\n    fast-path  pkg/a.cuh:10:2:");
    EXPECT_GT(refusal, line) << text;
    EXPECT_GT(fast, refusal) << "class order under the entry too: " << text;
    EXPECT_LT(text.find("\n  hardware   wgmma:"), std::string::npos) << text;
    EXPECT_GT(text.find("\n  hardware   wgmma:"), fast) << text;
    EXPECT_NE(text.find("; 1 hardware-exclusive, 2 known unsafe to widen; 1 not shown"), std::string::npos) << text;
    if (each) EXPECT_NE(text.find("\n        why: refuses\n", refusal), std::string::npos) << text;
  }
}

// A condition continued over lines (DeepGEMM's `(arch_major == 10 and ...) or\n    (arch_major ==
// 9 and ...)`) prints on one line, in the audit's lines and suggest's.
TEST(OneLine, EachRunOfBlanksAndLineBreaksIsOneSpace) {
  EXPECT_EQ(OneLine("(a == 10) or\n                       (a == 9)"), "(a == 10) or (a == 9)");
  EXPECT_EQ(OneLine("\r\n\tx  \\\n  y "), "x \\ y ");
  EXPECT_EQ(OneLine(""), "");
}

TEST(Groups, JsonCarriesEveryGroupWithRootPlacesWidenAndRules) {
  Fixture f;
  nlohmann::ordered_json j = GroupsJson(f.groups, f.findings);
  ASSERT_EQ(j.size(), 4u);
  EXPECT_EQ(j[1]["id"], "G2");
  EXPECT_EQ(j[1]["root"]["file"], "pkg/b.hpp");
  EXPECT_EQ(j[1]["root"]["line"], 38);
  EXPECT_EQ(j[1]["places"].size(), 2u);
  EXPECT_EQ(j[1]["widen"]["verdict"], "widen-unsafe");
  EXPECT_EQ(j[3]["covered_by"][0], "rule-a");
  EXPECT_EQ(j[2]["class"], "legacy");
}

// --json prints each group as it writes it (GroupText): the bytes must be those of its value's
// dump, whatever it holds (a known-unsafe mark, prebuilt artifacts, no places, bytes that are
// not UTF-8), at the top and nested.
TEST(Groups, TextPrintsWhatTheValuesDumpPrints) {
  Fixture f;
  f.findings[2].text = "defined(SM90A) /* \xff */";
  f.findings[3].exclusion = gate::Classification{gate::ExclusionClass::kHardwareExclusive, "wgmma", std::nullopt};
  f.groups[1].known_unsafe = gate::KnownUnsafeMark{"fi-1", "a kernel", "it faults", "https://example.invalid/1"};
  gate::PrebuiltArtifacts cubins;
  cubins.group = "fmha";
  cubins.path = "pkg/cubins";
  cubins.arches = {"sm_90a", "sm_100a"};
  cubins.binary_count = 3;
  f.groups[2].prebuilt = {cubins, cubins};
  for (const Group& g : f.groups) {
    for (unsigned depth : {0u, 4u})
      EXPECT_EQ(GroupText(g, f.findings, depth), IndentedText(GroupJson(g, f.findings), depth));
  }
}

}  // namespace
}  // namespace archpatch::report
