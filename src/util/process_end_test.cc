#include "util/process_end.h"

#include <gtest/gtest.h>

namespace archpatch {
namespace {

// Counts its destructions of values it was not moved from.
struct Counted {
  explicit Counted(int* destroyed) : destroyed(destroyed) {}
  Counted(Counted&& other) noexcept : destroyed(other.destroyed) { other.destroyed = nullptr; }
  ~Counted() {
    if (destroyed) ++*destroyed;
  }
  int* destroyed;
};

TEST(LeaveToProcessEnd, NeverDestroysWhatItKeeps) {
  int destroyed = 0;
  {
    Counted value(&destroyed);
    LeaveToProcessEnd(std::move(value));
  }
  EXPECT_EQ(destroyed, 0) << "the value left to the process's end was destroyed";
}

}  // namespace
}  // namespace archpatch
