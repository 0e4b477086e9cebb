#include "cuda/expression_file.h"

#include <gtest/gtest.h>

namespace archpatch::cuda {
namespace {

std::vector<std::string> Shown(const std::vector<SourcedExpression>& exprs) {
  std::vector<std::string> out;
  for (const SourcedExpression& e : exprs) {
    out.push_back(e.origin + ":" + std::to_string(e.line) + "+" + std::to_string(e.column_offset) + " " + e.text);
  }
  return out;
}

TEST(ExpressionFile, GrepOutputReadsAsOneConditionPerLine) {
  const std::string text =
      "#if (__CUDA_ARCH__ >= 900) && (__CUDA_ARCH__ < 1200)\n"
      "\n"
      "# a comment\n"
      "  #elif\tdefined(__CUDA_ARCH_FEAT_SM90_ALL)\n"
      "#endif\n"
      "__CUDA_ARCH__ >= 1000";  // no newline at the end
  EXPECT_EQ(Shown(ExpressionsOfText(text, "conds.txt")),
            (std::vector<std::string>{"conds.txt:1+4 (__CUDA_ARCH__ >= 900) && (__CUDA_ARCH__ < 1200)",
                                      "conds.txt:4+8 defined(__CUDA_ARCH_FEAT_SM90_ALL)",
                                      "conds.txt:6+0 __CUDA_ARCH__ >= 1000"}));
}

TEST(ExpressionFile, ABackslashContinuesTheExpressionAndItsLineIsTheFirst) {
  const std::string text = "defined(A) && \\\n  defined(B)\nC\n";
  EXPECT_EQ(Shown(ExpressionsOfText(text, "f")),
            (std::vector<std::string>{"f:1+0 defined(A) && \\\n  defined(B)", "f:3+0 C"}));
}

TEST(ExpressionFile, AMissingFileIsAnErrorNamingIt) {
  Result<std::vector<SourcedExpression>> r = ReadExpressionFile("/nonexistent/conds.txt");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().str().find("/nonexistent/conds.txt"), std::string::npos);
}

}  // namespace
}  // namespace archpatch::cuda
