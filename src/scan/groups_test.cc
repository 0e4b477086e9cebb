// Root causes as the report shows them: which build of the target's chip takes a path the plain
// target is refused.
#include "scan/groups.h"

#include <gtest/gtest.h>

namespace archpatch::scan {
namespace {

Finding Gate(std::string file, int line, std::vector<gate::ArchVerdict> verdict) {
  Finding f;
  f.file = std::move(file);
  f.line = line;
  f.column = 3;
  f.kind = gate::Kind::kCudaGate;
  f.text = "defined(__CUDA_ARCH_SPECIFIC__)";
  f.verdict = std::move(verdict);
  f.exclusion = gate::Classification{gate::ExclusionClass::kFastPath, "generic #else", std::nullopt};
  return f;
}

// CUTLASS's `#if defined(__CUDA_ARCH_SPECIFIC__)` and FlashInfer's arch_condition.h: built for
// sm_120a the path is taken, built for sm_120 not. The variant is named only when the target is
// plain, refused, and the variant admitted.
TEST(BuildGroups, NameTheArchSpecificBuildThatTakesAPathThePlainTargetIsRefused) {
  std::vector<Finding> findings = {
      Gate("pkg/a.h", 10, {{"sm_120", Tri::kFalse}, {"sm_90", Tri::kFalse}, {"sm_120a", Tri::kTrue}}),
      Gate("pkg/b.h", 20, {{"sm_120", Tri::kFalse}, {"sm_120a", Tri::kUnknown}}),
      Gate("pkg/c.h", 30, {{"sm_120a", Tri::kFalse}, {"sm_120", Tri::kTrue}}),
      Gate("pkg/d.h", 40, {{"sm_120", Tri::kFalse}, {"sm_90", Tri::kTrue}}),
  };
  const std::vector<gate::Group> groups = BuildGroups(findings, {"pkg"});
  ASSERT_EQ(groups.size(), 4u);
  std::map<std::string, std::string> by_file;
  for (const gate::Group& g : groups) by_file[findings[g.root].file] = g.admitted_on_variant;
  EXPECT_EQ(by_file["pkg/a.h"], "sm_120a");
  EXPECT_EQ(by_file["pkg/b.h"], "");  // unknown there
  EXPECT_EQ(by_file["pkg/c.h"], "");  // the target is sm_120a itself
  EXPECT_EQ(by_file["pkg/d.h"], "");  // no verdict for sm_120a
}

}  // namespace
}  // namespace archpatch::scan
