#include "gate/prebuilt.h"

#include <gtest/gtest.h>

namespace archpatch::gate {
namespace {

PrebuiltArtifacts Link(std::vector<std::string> arches, Tri runs, ArchesFrom from = ArchesFrom::kFileNames) {
  PrebuiltArtifacts p;
  p.group = "TRTLLM_GEN_BMM";
  p.via = "gen_trtllm_gen_fused_moe_sm100_module";
  p.arches = std::move(arches);
  p.arches_from = from;
  p.runs_on_target = runs;
  return p;
}

TEST(PrebuiltRuns, OneImageForTheTargetIsEnoughUnknownBeatsNone) {
  EXPECT_EQ(PrebuiltRuns({}), Tri::kUnknown);
  EXPECT_EQ(PrebuiltRuns({Link({"sm_100f"}, Tri::kFalse)}), Tri::kFalse);
  EXPECT_EQ(PrebuiltRuns({Link({"sm_100f"}, Tri::kFalse), Link({}, Tri::kUnknown)}), Tri::kUnknown);
  EXPECT_EQ(PrebuiltRuns({Link({"sm_100f"}, Tri::kFalse), Link({"sm_120f"}, Tri::kTrue)}), Tri::kTrue);
}

TEST(PrebuiltSentence, SaysWhatWideningWouldLoadInPlainWords) {
  PrebuiltArtifacts installed = Link({"sm_100f"}, Tri::kFalse);
  installed.binaries = {"site/flashinfer_cubin/cubins/abc/Bmm_sm100f.cubin"};
  installed.binary_count = 3;
  EXPECT_EQ(PrebuiltSentence({installed}, "sm_120"),
            "its module loads precompiled code with no image for sm_120: TRTLLM_GEN_BMM via "
            "gen_trtllm_gen_fused_moe_sm100_module (sm_100f: named so by its 3 installed files, e.g. "
            "site/flashinfer_cubin/cubins/abc/Bmm_sm100f.cubin); widening this gate for sm_120 would load code that "
            "cannot run there (prebuilt-without-image)");
  EXPECT_EQ(PrebuiltSentence({Link({}, Tri::kUnknown, ArchesFrom::kUnknown)}, "sm_120"),
            "its module loads precompiled code whose arches archpatch cannot see: TRTLLM_GEN_BMM via "
            "gen_trtllm_gen_fused_moe_sm100_module (fetched at run time, no copy under the audited paths, so its "
            "arches are unknown); widening this gate may load code with no image for sm_120");
}

}  // namespace
}  // namespace archpatch::gate
