// Cross-file feature macros, root-cause groups and the folders an audit leaves out, on a small
// package written to a temporary folder (shapes of CUTLASS's config.hpp and its users).
#include "scan/package_macros.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <mutex>
#include <unistd.h>

#include <fmt/format.h>

#include <gtest/gtest.h>

#include "cuda/directives.h"
#include "report/finding.h"
#include "scan/audit.h"
#include "scan/groups.h"
#include "util/identifier.h"

namespace archpatch::scan {
namespace {

namespace fs = std::filesystem;

class Package : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / fmt::format("archpatch_pkgmacros_{}", ::getpid());
    fs::remove_all(root_);
    Write("pkg/arch/config.hpp",
          "#if defined(__CUDA_ARCH_FEAT_SM90_ALL)\n"
          "#  define PKG_MMA_SM90A_ENABLED\n"
          "#endif\n");
    Write("pkg/arch/mma.hpp",
          "#include \"config.hpp\"\n"
          "void fma() {\n"
          "#if defined(PKG_MMA_SM90A_ENABLED)\n"
          "  asm volatile(\"wgmma.fence.sync.aligned;\\n\");\n"
          "#else\n"
          "  CUTE_INVALID_CONTROL_PATH(\"needs PKG_MMA_SM90A_ENABLED\");\n"
          "#endif\n"
          "}\n");
    Write("pkg/kernel.cuh",
          "__global__ void k() {\n"
          "#if !defined(__CUDA_ARCH_FEAT_SM90_ALL)\n"
          "  printf(\"ERROR : needs sm90a. Aborting.\\n\");\n"
          "#else\n"
          "  work();\n"
          "#endif\n"
          "}\n");
    Write("pkg/tests/test_k.cu", "#if __CUDA_ARCH__ >= 900 && __CUDA_ARCH__ < 1200\nx();\n#endif\n");
  }
  void TearDown() override { fs::remove_all(root_); }

  void Write(const std::string& rel, const std::string& text) {
    fs::create_directories((root_ / rel).parent_path());
    std::ofstream(root_ / rel) << text;
  }

  AuditReport Run(bool keep_tests = false) {
    AuditOptions o;
    o.target = *arch::ParseArch("sm_120");
    o.paths = {(root_ / "pkg").string()};
    o.jobs = 1;
    o.walk.keep_tests = keep_tests;
    Result<AuditReport> r = Audit(o);
    EXPECT_TRUE(r.ok());
    return *r;
  }

  const Finding* At(const AuditReport& r, const std::string& suffix, int line) {
    for (const Finding& f : r.findings) {
      if (f.file.ends_with(suffix) && f.line == line) return &f;
    }
    return nullptr;
  }

  fs::path root_;
};

TEST_F(Package, AMacroDefinedInAnotherFileIsEvaluatedPerArch) {
  AuditReport r = Run();
  const Finding* use = At(r, "mma.hpp", 3);
  ASSERT_NE(use, nullptr);
  EXPECT_EQ(use->VerdictFor("sm_120"), Tri::kFalse);
  EXPECT_EQ(use->VerdictFor("sm_90a"), Tri::kTrue);
  EXPECT_EQ(ToJson(*use).value("class", ""), "refusal");
  ASSERT_TRUE(r.package_macros.count("PKG_MMA_SM90A_ENABLED"));
}

// nvcc decides __CUDA_ARCH_FEAT_SM90_ALL per pass; a package header that #defines it for an IDE
// (FlashInfer's xqa/cuda_hint.cuh) must not make the package's tests of it false on sm_90a.
TEST_F(Package, APackageDefineOfACompilerMacroIsNotTaken) {
  Write("pkg/ide_hint.cuh",
        "#if IS_IN_IDE_PARSER\n#if __CUDA_ARCH__ == 900\n#ifndef __CUDA_ARCH_FEAT_SM90_ALL\n"
        "#define __CUDA_ARCH_FEAT_SM90_ALL\n#endif\n#endif\n#endif\n");
  AuditReport r = Run();
  EXPECT_FALSE(r.package_macros.count("__CUDA_ARCH_FEAT_SM90_ALL"));
  const Finding* use = At(r, "mma.hpp", 3);
  ASSERT_NE(use, nullptr);
  EXPECT_EQ(use->VerdictFor("sm_90a"), Tri::kTrue);
  EXPECT_EQ(use->VerdictFor("sm_90"), Tri::kFalse);
}

// A later round scans mma.hpp's users again for their directives; a runtime check beside one
// keeps the first round's finding, once.
TEST_F(Package, ARescannedFileKeepsItsRuntimeCheckOnce) {
  Write("pkg/arch/launch.cu",
        "#include \"config.hpp\"\n"
        "void launch(int sm_version) {\n"
        "#if defined(PKG_MMA_SM90A_ENABLED)\n"
        "  run();\n"
        "#endif\n"
        "  if (sm_version != 90) { throw std::runtime_error(\"needs sm90a\"); }\n"
        "}\n");
  AuditReport r = Run();
  ASSERT_NE(At(r, "launch.cu", 3), nullptr);  // rescanned: the directive under the package macro
  const size_t checks = std::count_if(r.findings.begin(), r.findings.end(), [](const Finding& f) {
    return f.file.ends_with("launch.cu") && f.kind == gate::Kind::kCppRuntimeGate && f.line == 6;
  });
  EXPECT_EQ(checks, 1u);
}

// A macro defined from a package macro (cute/arch/config.hpp's CUTE_ARCH_* from CUTLASS's
// CUTLASS_ARCH_MMA_SM90A_ENABLED) takes a second round; its user is evaluated with both, and the
// per-file pass (the hazard checks) runs once for each gated file, with the macros the findings
// were evaluated with, not once per round.
TEST_F(Package, MacrosOfMacrosSettleAndTheFilePassRunsOncePerFile) {
  Write("pkg/arch/derived.hpp",
        "#if defined(PKG_MMA_SM90A_ENABLED)\n"
        "#  define PKG_DERIVED_ENABLED\n"
        "#endif\n");
  Write("pkg/user.cuh",
        "__global__ void u() {\n"
        "#if defined(PKG_DERIVED_ENABLED)\n"
        "  work();\n"
        "#endif\n"
        "}\n");
  AuditOptions o;
  o.target = *arch::ParseArch("sm_120");
  o.paths = {(root_ / "pkg").string()};
  o.jobs = 2;
  std::mutex mutex;
  std::map<std::string, int> calls;
  std::map<std::string, size_t> macros_seen;
  o.after_cuda_file = [&](ScannedFile& file, std::vector<Finding>& findings, std::vector<Error>&) {
    std::lock_guard<std::mutex> lock(mutex);
    ++calls[fs::path(file.path).filename().string()];
    macros_seen[fs::path(file.path).filename().string()] = file.env.per_arch.count("PKG_DERIVED_ENABLED");
    EXPECT_FALSE(file.tokens.empty());
    EXPECT_FALSE(findings.empty());
    // The scan hands over its reading of the directives and their verdicts, which must be what
    // evaluating them in the environment it passes gives (the hazard checks take them as such).
    ASSERT_NE(file.directives, nullptr);
    ASSERT_NE(file.verdicts, nullptr);
    const cuda::BranchVerdicts again =
        cuda::EvaluateBranches(*file.directives, VerdictArches(o.target, o.against), file.env, file.path);
    EXPECT_EQ(file.verdicts->effective, again.effective) << file.path;
  };
  Result<AuditReport> r = Audit(o);
  ASSERT_TRUE(r.ok());
  const Finding* use = At(*r, "user.cuh", 2);
  ASSERT_NE(use, nullptr);
  EXPECT_EQ(use->VerdictFor("sm_120"), Tri::kFalse);
  EXPECT_EQ(use->VerdictFor("sm_90a"), Tri::kTrue);
  EXPECT_EQ(calls["user.cuh"], 1);
  EXPECT_EQ(calls["mma.hpp"], 1);
  EXPECT_EQ(calls["kernel.cuh"], 1);
  EXPECT_EQ(macros_seen["user.cuh"], 1u);    // names one: analysed with the package's macros
  EXPECT_EQ(macros_seen["kernel.cuh"], 0u);  // names none: under the user's macros alone
}

// Three levels (CUTLASS's config.h -> cute's config.hpp -> a header of its own): each round reads
// again only the files that name a macro whose state the round before changed, and every level
// still settles per arch. derived.hpp names only the first level's macro, settled by the first
// round: the second does not read it again, and its definitions stay as the first found them.
// The same when every file is lexed ahead, which the first read reads for its definitions alone
// (cuda::GateKinds::definitions_only): the findings round evaluates its branches.
TEST_F(Package, EachRoundSettlesTheLevelItsMacrosChanged) {
  Write("pkg/arch/derived.hpp",
        "#if defined(PKG_MMA_SM90A_ENABLED)\n"
        "#  define PKG_DERIVED_ENABLED\n"
        "#endif\n");
  Write("pkg/arch/derived2.hpp",
        "#if defined(PKG_DERIVED_ENABLED) || defined(PKG_MMA_SM90A_ENABLED)\n"
        "#  define PKG_DERIVED2_ENABLED\n"
        "#endif\n");
  Write("pkg/user2.cuh",
        "__global__ void u() {\n"
        "#if defined(PKG_DERIVED2_ENABLED)\n"
        "  work();\n"
        "#endif\n"
        "}\n");
  std::vector<std::string> reports;
  for (const auto& [jobs, lex_ahead_from] :
       {std::pair<int, size_t>{1, AuditOptions{}.lex_ahead_from}, {3, 1}, {1, 1}}) {
    AuditOptions o;
    o.target = *arch::ParseArch("sm_120");
    o.paths = {(root_ / "pkg").string()};
    o.jobs = jobs;
    o.lex_ahead_from = lex_ahead_from;
    Result<AuditReport> r = Audit(o);
    ASSERT_TRUE(r.ok());
    for (const char* name : {"PKG_MMA_SM90A_ENABLED", "PKG_DERIVED_ENABLED", "PKG_DERIVED2_ENABLED"}) {
      ASSERT_TRUE(r->package_macros.count(name)) << name << " -j" << jobs;
      EXPECT_EQ(r->package_macros.at(name).at("sm_90a"), Tri::kTrue) << name;
      EXPECT_EQ(r->package_macros.at(name).at("sm_120"), Tri::kFalse) << name;
    }
    const Finding* use = At(*r, "user2.cuh", 2);
    ASSERT_NE(use, nullptr) << "-j" << jobs;
    EXPECT_EQ(use->VerdictFor("sm_120"), Tri::kFalse);
    EXPECT_EQ(use->VerdictFor("sm_90a"), Tri::kTrue);
    std::string text;
    for (const Finding& f : r->findings) text += ToJson(f).dump() + "\n";
    reports.push_back(text);
  }
  EXPECT_EQ(reports[1], reports[0]) << "every file lexed ahead";
  EXPECT_EQ(reports[2], reports[0]) << "every file lexed ahead, -j1";
}

TEST_F(Package, NotFeatErrorElseBodyIsListedAsARefusal) {
  AuditReport r = Run();
  const Finding* body = At(r, "kernel.cuh", 4);
  ASSERT_NE(body, nullptr);
  EXPECT_EQ(ToJson(*body).value("directive", ""), "else");
  EXPECT_EQ(ToJson(*body).value("class", ""), "refusal");
}

TEST_F(Package, TestsAreLeftOutUnlessKept) {
  EXPECT_EQ(At(Run(), "test_k.cu", 1), nullptr);
  EXPECT_NE(At(Run(/*keep_tests=*/true), "test_k.cu", 1), nullptr);
}

TEST_F(Package, TheDefineIsTheRootCauseOfItsUsers) {
  AuditReport r = Run();
  std::vector<gate::Group> groups = BuildGroups(r.findings, {(root_ / "pkg").string()});
  const gate::Group* define = nullptr;
  for (const gate::Group& g : groups) {
    if (r.findings[g.root].file.ends_with("config.hpp")) define = &g;
  }
  ASSERT_NE(define, nullptr);
  ASSERT_EQ(define->places.size(), 1u);
  EXPECT_TRUE(r.findings[define->places[0]].file.ends_with("mma.hpp"));
  EXPECT_EQ(define->klass,
            gate::ExclusionClass::kRefusal);  // no hazard pass here: the class comes from the user's #else
  EXPECT_EQ(define->distribution, (root_ / "pkg").string());
}

// The package model waits for the last Python module, and nothing waits for it in turn: the
// findings round takes the modules before the C/C++ files (bar those lexed ahead), so that the
// model runs beside the C/C++ files instead of after the last of them, however small the modules
// are. One worker: the order is the round's own.
TEST_F(Package, ThePackageModelRunsBeforeTheLastCppFile) {
  Write("pkg/tiny.py", "x = 1\n");  // the smallest file: the last one, largest first
  AuditOptions o;
  o.target = *arch::ParseArch("sm_120");
  o.paths = {(root_ / "pkg").string()};
  o.jobs = 1;
  size_t done = 0, total = 0, model_at = 0;
  o.on_file_done = [&](size_t d, size_t t) { done = d, total = t; };
  o.after_package_model = [&](std::vector<Finding>&) {
    model_at = done;
    return std::future<void>();
  };
  ASSERT_TRUE(Audit(o).ok());
  ASSERT_GT(total, 1u);
  EXPECT_EQ(done, total);
  EXPECT_EQ(model_at, 1u);  // after the one module, before every C/C++ file
}

TEST(PackageMacros, OnlyArchDependentDefinitionsAreKept) {
  std::vector<arch::Arch> arches = {*arch::ParseArch("sm_120"), *arch::ParseArch("sm_90a")};
  std::map<std::string, std::vector<cuda::MacroDefinition>> defs = {
      {"a.h", {{"GATED", {Tri::kFalse, Tri::kTrue}}, {"PLAIN", {Tri::kTrue, Tri::kTrue}}}},
      {"b.h", {{"BOTH", {Tri::kFalse, Tri::kTrue}}}},
      {"c.h", {{"BOTH", {Tri::kTrue, Tri::kFalse}}}}};
  PerArchMacros m = ResolvePackageMacros(defs, arches);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m["GATED"]["sm_120"], Tri::kFalse);
  EXPECT_EQ(m["GATED"]["sm_90a"], Tri::kTrue);
}

TEST(PackageMacros, MentionsWholeIdentifiersOnly) {
  std::set<std::string, std::less<>> names = {"FOO_ENABLED"};
  EXPECT_TRUE(MentionsAnyName("#if defined(FOO_ENABLED)\n", names));
  EXPECT_FALSE(MentionsAnyName("#if defined(FOO_ENABLED_X) || XFOO_ENABLED\n", names));
}

TEST(PackageMacros, MentionsTheSameWithFewOrManyFirstBytes) {
  // A few first bytes are searched for with memchr, many by walking every identifier: both must
  // find a name only as a whole identifier, and tell apart names that differ in a late byte.
  const std::set<std::string, std::less<>> few = {"CUTE_ARCH_TMA_SM90_ENABLED", "CUTLASS_ARCH_MMA_SM100A_ENABLED"};
  std::set<std::string, std::less<>> many = few;
  for (const char* other : {"A_X", "B_X", "D_X", "E_X", "F_X"}) many.insert(other);
  const std::pair<const char*, bool> cases[] = {
      {"CUTE_ARCH_TMA_SM90_ENABLED", true},  // at the very start and end
      {"#if defined(CUTE_ARCH_TMA_SM90_ENABLED)\n", true},
      {"#ifdef CUTLASS_ARCH_MMA_SM100A_ENABLED\n", true},
      {"#if defined(CUTE_ARCH_TMA_SM90_ENABLEX)\n", false},  // the last byte differs
      {"#if defined(CUTE_ARCH_TMA_SM91_ENABLED)\n", false},  // a middle byte differs
      {"XCUTE_ARCH_TMA_SM90_ENABLED CUTE_ARCH_TMA_SM90_ENABLED_2\n", false},
      {"0xCUTE_ARCH_TMA_SM90_ENABLED 1CUTE_ARCH_TMA_SM90_ENABLED\n", false},  // numbers
      {"CUTE CUTLASS_ARCH CUTE_ARCH_TMA_SM90_ENABLE\n", false},
      {"", false},
  };
  for (const auto& [text, mentioned] : cases) {
    EXPECT_EQ(MentionsAnyName(text, few), mentioned) << text;
    EXPECT_EQ(MentionsAnyName(text, many), mentioned) << text;
  }
  EXPECT_TRUE(MentionsAnyName("x = E_X;", many));
  EXPECT_FALSE(MentionsAnyName("x = E_X;", few));
}

}  // namespace
}  // namespace archpatch::scan
