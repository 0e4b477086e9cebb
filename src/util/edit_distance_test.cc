#include "util/edit_distance.h"

#include <gtest/gtest.h>

namespace archpatch {
namespace {

TEST(EditDistance, CountsInsertionsDeletionsAndSubstitutions) {
  EXPECT_EQ(EditDistance("audit", "audit"), 0u);
  EXPECT_EQ(EditDistance("aduit", "audit"), 2u);  // a transposition is two edits
  EXPECT_EQ(EditDistance("revet", "revert"), 1u);
  EXPECT_EQ(EditDistance("", "eval"), 4u);
  EXPECT_EQ(EditDistance("expect", "expects"), 1u);
}

}  // namespace
}  // namespace archpatch
