// Work spread over threads: each index of a range is handed to the next free thread, the
// caller's among them. For the short serial stretches of an audit that would otherwise keep
// every core but one idle (AuditRun and the file pass keep workers of their own, with per-worker
// results).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

namespace archpatch {

// Calls work(i) once for every i in [0, count), on at most `jobs` threads; returns when all
// are done. work must be safe to call from several threads for different i.
template <class Work>
void ParallelFor(size_t count, int jobs, Work&& work) {
  std::atomic<size_t> next{0};
  auto run = [&] {
    for (size_t i = next++; i < count; i = next++) work(i);
  };
  std::vector<std::thread> helpers;
  const size_t threads = std::min<size_t>(std::max(jobs, 1), count);
  for (size_t t = 1; t < threads; ++t) helpers.emplace_back(run);
  run();
  for (std::thread& t : helpers) t.join();
}

}  // namespace archpatch
