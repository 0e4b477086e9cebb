// Values a command leaves to the end of the process instead of freeing them, as compilers do
// with their ASTs (clang's -disable-free). An audit's report is hundreds of thousands of small
// strings made on its worker threads; freed one by one on the main thread after the report was
// printed, they cost 4-6 ms of a 0.3 s audit of FlashInfer + CUTLASS (tcmalloc moving every
// block back from the main thread's cache), while the process's exit gives all its memory back
// at once. Kept reachable, so a leak checker (the ASan build's) does not report them.
#pragma once

#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace archpatch {

// Moves `value` where nothing destroys it: only the process's end gives back its memory. For the
// last values a command makes, right before it returns: a long-lived process would grow.
template <class T>
void LeaveToProcessEnd(T value) {
  static std::mutex mutex;
  static auto* const kept = new std::vector<std::shared_ptr<void>>();  // never destroyed, never freed
  auto moved = std::make_shared<T>(std::move(value));
  std::lock_guard<std::mutex> lock(mutex);
  kept->push_back(std::move(moved));
}

}  // namespace archpatch
