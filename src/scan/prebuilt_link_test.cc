#include "scan/prebuilt_link.h"

#include <gtest/gtest.h>

#include "gate/prebuilt.h"
#include "python/scanner.h"

namespace archpatch::scan {
namespace {

const arch::Arch kSm120 = {12, 0, arch::Variant::kPlain};

// One group with known arches, named by gen_bmm_module (jit/bmm.py), which compiles the launcher.
ArtifactIndex Index(std::set<std::string> arches) {
  ArtifactIndex index;
  ArtifactGroup g;
  g.name = "TRTLLM_GEN_BMM";
  g.path = "abc/batched_gemm";
  g.declared = "pkg/artifacts.py:8";
  g.arches = std::move(arches);
  g.from = g.arches.empty() ? gate::ArchesFrom::kUnknown : gate::ArchesFrom::kFileNames;
  index.groups.push_back(g);
  index.loaders.push_back({"/site/pkg/jit/bmm.py", "gen_bmm_module", {0}, {"csrc/bmm_launcher.cu"}});
  index.loaders_by_name["gen_bmm_module"] = {0};
  return index;
}

Finding PythonGate(const std::string& file, const std::string& scope) {
  Finding f;
  f.file = file;
  f.kind = gate::Kind::kPythonGate;
  f.scope = scope;
  f.form = gate::PythonForm{};
  return f;
}

const char* kCore = R"(from ..jit.bmm import gen_bmm_module


def _module_impl():
    return gen_bmm_module().build_and_load()


def bmm_moe(x):
    if major != 10:
        raise RuntimeError("SM100 only")
    return _module_impl().run(x)


def other(x):
    if major != 9:
        raise RuntimeError("SM90 only")
    return x
)";

TEST(LinkFilePrebuilt, ThroughCallsInsideTheFile) {
  const ArtifactIndex index = Index({"sm_100f"});
  std::vector<Finding> findings = {PythonGate("pkg/fused/core.py", "bmm_moe"),
                                   PythonGate("pkg/fused/core.py", "other")};
  LinkFilePrebuilt(findings, "pkg/fused/core.py", kCore, index, kSm120);
  ASSERT_EQ(findings[0].prebuilt.size(), 1u);
  EXPECT_EQ(findings[0].prebuilt[0].group, "TRTLLM_GEN_BMM");
  EXPECT_EQ(findings[0].prebuilt[0].via, "gen_bmm_module");
  EXPECT_EQ(findings[0].prebuilt[0].runs_on_target, Tri::kFalse);
  EXPECT_TRUE(findings[1].prebuilt.empty());
}

TEST(LinkFilePrebuilt, AGateInsideTheGeneratorAndACppCheckInASourceItCompiles) {
  const ArtifactIndex index = Index({});
  std::vector<Finding> findings = {PythonGate("pkg/jit/bmm.py", "gen_bmm_module")};
  LinkFilePrebuilt(findings, "pkg/jit/bmm.py", "def gen_bmm_module():\n    pass\n", index, kSm120);
  ASSERT_EQ(findings[0].prebuilt.size(), 1u);
  EXPECT_EQ(findings[0].prebuilt[0].runs_on_target, Tri::kUnknown);
  Finding check;
  check.file = "/site/pkg/data/csrc/bmm_launcher.cu";
  check.kind = gate::Kind::kCppRuntimeGate;
  Finding directive = check;
  directive.kind = gate::Kind::kCudaGate;  // decides what is compiled, not what is loaded
  std::vector<Finding> cpp = {check, directive};
  LinkPrebuilt(cpp, index, kSm120, /*jobs=*/2);
  EXPECT_EQ(cpp[0].prebuilt.size(), 1u);
  EXPECT_TRUE(cpp[1].prebuilt.empty());
}

// Audit links a module's findings on the worker that scanned it; the report's end links only
// the findings it has not (those the package model resolved later), so no module is read twice.
TEST(LinkPrebuilt, LinksOnlyTheFindingsNotLinkedYet) {
  const ArtifactIndex index = Index({"sm_100f"});
  Finding check;
  check.file = "/site/pkg/data/csrc/bmm_launcher.cu";
  check.kind = gate::Kind::kCppRuntimeGate;
  std::vector<Finding> early = {check};
  LinkFilePrebuilt(early, check.file, "", index, kSm120);
  ASSERT_EQ(early[0].prebuilt.size(), 1u);
  EXPECT_TRUE(early[0].prebuilt_read);
  early[0].prebuilt.clear();  // what the report's end must not redo
  std::vector<Finding> all = {early[0], check};
  LinkPrebuilt(all, index, kSm120, /*jobs=*/1);
  EXPECT_TRUE(all[0].prebuilt.empty());
  ASSERT_EQ(all[1].prebuilt.size(), 1u);
  EXPECT_TRUE(all[1].prebuilt_read);
}

// The package model's findings of a module are linked at the findings round's end, after the
// module's own (on the worker that scanned it, with its tokens at hand): from the calls read
// then, without reading the file again. The file does not exist here: read again, it would link
// nothing.
TEST(LinkPrebuilt, AModelsFindingsTakeTheModulesCallsReadForItsOwn) {
  const ArtifactIndex index = Index({"sm_100f"});
  const std::string file = testing::TempDir() + "/no-such-dir/core.py";
  LinkedCalls kept;
  std::vector<Finding> own = {PythonGate(file, "other")};
  LinkFilePrebuilt(own, file, kCore, index, kSm120, nullptr, &kept);
  EXPECT_TRUE(own[0].prebuilt.empty());
  ASSERT_TRUE(kept.Has(file));
  std::vector<Finding> resolved = {PythonGate(file, "bmm_moe")};
  LinkPrebuilt(resolved, index, kSm120, /*jobs=*/2, &kept);
  ASSERT_EQ(resolved[0].prebuilt.size(), 1u);
  EXPECT_EQ(resolved[0].prebuilt[0].via, "gen_bmm_module");
  std::vector<Finding> unkept = {PythonGate(file, "bmm_moe")};
  LinkPrebuilt(unkept, index, kSm120, /*jobs=*/2);  // the file read again: it is not there
  EXPECT_TRUE(unkept[0].prebuilt.empty());
}

// A module scanned before the artifact index is made keeps its calls unresolved (read from the
// scan's tokens): its findings, linked after the package model from them, get the links a link at
// once gives, and the file is not read again (it does not exist here).
TEST(LinkPrebuilt, AModulesCallsKeptBeforeTheIndexLinkAsAtOnce) {
  const ArtifactIndex index = Index({"sm_100f"});
  const std::string file = testing::TempDir() + "/no-such-dir/core.py";
  Result<python::ScannedModule> scanned = python::ScanPythonModule(file, kCore, {kSm120});
  ASSERT_TRUE(scanned.ok()) << scanned.error().str();
  std::vector<Finding> at_once = {PythonGate(file, "bmm_moe"), PythonGate(file, "other")};
  LinkFilePrebuilt(at_once, file, kCore, index, kSm120, &scanned->syntax);
  ASSERT_EQ(at_once[0].prebuilt.size(), 1u);
  EXPECT_TRUE(at_once[1].prebuilt.empty());

  LinkedCalls kept;
  kept.KeepUnresolved(file, scanned->syntax);
  std::vector<Finding> later = {PythonGate(file, "bmm_moe"), PythonGate(file, "other")};
  LinkPrebuilt(later, index, kSm120, /*jobs=*/2, &kept);
  ASSERT_EQ(later[0].prebuilt.size(), 1u);
  EXPECT_EQ(later[0].prebuilt[0], at_once[0].prebuilt[0]);
  EXPECT_TRUE(later[1].prebuilt.empty());
  EXPECT_TRUE(later[0].prebuilt_read && later[1].prebuilt_read);
}

// gemm_base.py's form: one function, an arm per backend; only the trtllm arm loads cubins.
const char* kBackends = R"(def gemm(a, backend):
    if backend == "cutlass":
        if is_sm100a_supported(a.device):
            return cutlass_module().run(a)
    elif backend == "trtllm":
        if is_sm100f_supported(a.device):
            return gen_bmm_module().run(a)
)";

TEST(LinkFilePrebuilt, AGateThatEnablesReachesWhatItsOwnArmCalls) {
  const ArtifactIndex index = Index({"sm_100f"});
  std::vector<Finding> findings = {PythonGate("pkg/gemm.py", "gemm"), PythonGate("pkg/gemm.py", "gemm")};
  findings[0].span = {std::string_view(kBackends).find("is_sm100a"), 0};
  findings[1].span = {std::string_view(kBackends).find("is_sm100f"), 0};
  for (Finding& f : findings) f.direction = gate::Direction::kEnables;
  LinkFilePrebuilt(findings, "pkg/gemm.py", kBackends, index, kSm120);
  EXPECT_TRUE(findings[0].prebuilt.empty());
  EXPECT_EQ(findings[1].prebuilt.size(), 1u);
}

TEST(MarkPrebuiltGroups, NoImageIsUnsafeUnknownIsNotSafe) {
  std::vector<Finding> findings = {PythonGate("a.py", "f"), PythonGate("b.py", "g"), PythonGate("c.py", "h")};
  const ArtifactIndex without = Index({"sm_100f"}), unknown = Index({}), with = Index({"sm_120f"});
  findings[0].prebuilt = {ToPrebuilt(without.groups[0], "gen_bmm_module", kSm120)};
  findings[1].prebuilt = {ToPrebuilt(unknown.groups[0], "gen_bmm_module", kSm120)};
  findings[2].prebuilt = {ToPrebuilt(with.groups[0], "gen_bmm_module", kSm120)};
  std::vector<gate::Group> groups(3);
  for (size_t i = 0; i < 3; ++i) groups[i].root = i;
  MarkPrebuiltGroups(groups, findings, kSm120);
  EXPECT_EQ(groups[0].widen, gate::WidenSafety::kUnsafe);
  ASSERT_FALSE(groups[0].widen_reasons.empty());
  EXPECT_NE(groups[0].widen_reasons[0].find("no image for sm_120"), std::string::npos) << groups[0].widen_reasons[0];
  EXPECT_EQ(groups[1].widen, gate::WidenSafety::kUnknown);
  EXPECT_EQ(groups[2].widen, gate::WidenSafety::kSafe);
  EXPECT_TRUE(groups[2].widen_reasons.empty());
  EXPECT_EQ(groups[2].prebuilt.size(), 1u);
}

}  // namespace
}  // namespace archpatch::scan
