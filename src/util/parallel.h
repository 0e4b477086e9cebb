// Work spread over threads: each index of a range is handed to the next free thread, the
// caller's among them, the others the process's pool's (util/worker_pool.h). For the short serial
// stretches of an audit that would otherwise keep every core but one idle (AuditRun keeps
// per-worker results and runs its workers on the pool itself).
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <mutex>
#include <optional>
#include <vector>

#include "util/worker_pool.h"

namespace archpatch {

// Calls work(i) once for every i in [0, count), on at most `jobs` threads; returns when all
// are done. work must be safe to call from several threads for different i.
template <class Work>
void ParallelFor(size_t count, int jobs, Work&& work) {
  std::atomic<size_t> next{0};
  auto run = [&] {
    for (size_t i = next++; i < count; i = next++) work(i);
  };
  const size_t threads = std::min<size_t>(std::max(jobs, 1), count);
  WorkerPool::Shared().Run(threads, [&](size_t) { run(); });
}

// Calls make(i) for every i in [0, count) on at most `jobs` threads, the caller's among them, and
// use(i, made) on the calling thread in the order of i, each as soon as it and those before it
// are made: the caller makes too while the next to use is not ready. At most `window` results
// are held. The first exception that make or use throws stops the rest and is thrown here.
// (An audit's JSON: the elements made on every core while the caller prints them, where a batch
// at a time left the cores idle during each batch's printing and its slowest element.)
template <class T, class Make, class Use>
void ParallelInOrder(size_t count, int jobs, size_t window, Make&& make, Use&& use) {
  window = std::max<size_t>(window, 1);
  std::mutex mutex;
  std::condition_variable made_one, used_one;
  std::vector<std::optional<T>> slots(std::min(window, count));
  size_t next = 0, used = 0;  // under mutex
  std::exception_ptr failure;
  // The next index to make, if one may be made now; called with `mutex` held.
  auto take = [&]() -> std::optional<size_t> {
    if (failure || next >= count || next >= used + window) return std::nullopt;
    return next++;
  };
  auto make_one = [&](std::unique_lock<std::mutex>& lock, size_t i) {
    lock.unlock();
    std::optional<T> result;
    std::exception_ptr error;
    try {
      result.emplace(make(i));
    } catch (...) {
      error = std::current_exception();
    }
    lock.lock();
    if (error && !failure) failure = error;
    slots[i % slots.size()] = std::move(result);
    made_one.notify_all();
  };
  auto helper = [&] {
    std::unique_lock<std::mutex> lock(mutex);
    for (;;) {
      if (std::optional<size_t> i = take()) {
        make_one(lock, *i);
      } else if (failure || next >= count) {
        return;
      } else {
        used_one.wait(lock);
      }
    }
  };
  auto use_in_order = [&] {
    std::unique_lock<std::mutex> lock(mutex);
    while (used < count && !failure) {
      std::optional<T>& slot = slots[used % slots.size()];
      if (slot) {
        T ready = std::move(*slot);
        slot.reset();
        lock.unlock();
        try {
          use(used, ready);
        } catch (...) {
          lock.lock();
          failure = std::current_exception();
          break;
        }
        lock.lock();
        ++used;
        // Helpers that found the window full are woken once half of it is free, and fill it
        // again: woken for each slot used, each made one element and slept again (`--json` on 16
        // cores, once its elements were made faster than written: 4,300 context switches).
        if (next - used <= window / 2) used_one.notify_all();
      } else if (std::optional<size_t> i = take()) {
        make_one(lock, *i);
      } else {
        made_one.wait(lock);
      }
    }
    used_one.notify_all();  // helpers waiting for room see the failure or the end
  };
  const size_t threads = std::min<size_t>(std::max(jobs, 1), count);
  WorkerPool::Shared().Run(threads, [&](size_t slot) { slot == 0 ? use_in_order() : helper(); });
  if (failure) std::rethrow_exception(failure);
}

}  // namespace archpatch
