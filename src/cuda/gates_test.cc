// Verdicts names arches from a table made once: every arch, in and out of the table, keeps
// Arch::name().
#include "cuda/gates.h"

#include <gtest/gtest.h>

namespace archpatch::cuda {
namespace {

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

}  // namespace
}  // namespace archpatch::cuda
