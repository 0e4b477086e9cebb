#include "python/word_set.h"

#include <gtest/gtest.h>

namespace archpatch::python {
namespace {

constexpr std::string_view kWords[] = {"and", "or", "not", "in", "is", "if", "else", "lambda", "None", "True", "False"};
constexpr WordSet kSet(kWords);

TEST(PythonWordSet, HoldsEachWord) {
  for (std::string_view w : kWords) EXPECT_TRUE(kSet.Has(w)) << w;
}

TEST(PythonWordSet, RefusesOtherNames) {
  for (std::string_view name : {"", "i", "id", "inn", "an", "andd", "iff", "none", "NONE", "Tru", "lambda_", "x",
                                "self", "elif", "abcdefghijklmnopqrstuvwxyz"}) {
    EXPECT_FALSE(kSet.Has(name)) << name;
  }
}

}  // namespace
}  // namespace archpatch::python
