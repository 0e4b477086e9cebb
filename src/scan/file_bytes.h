// What the audit's workers share for reading files: a reusable buffer for one file's bytes, and
// the budget that keeps the bytes being worked on at once small.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "util/result.h"

namespace archpatch::scan {

// A whole file's bytes: read() into a buffer kept between files for the usual source file (no page
// faults, no munmap), mmap for big ones.
class FileBytes {
 public:
  FileBytes() = default;
  FileBytes(const FileBytes&) = delete;
  FileBytes& operator=(const FileBytes&) = delete;
  ~FileBytes() { Unmap(); }

  Status Load(const std::string& path);
  std::string_view view() const {
    return mapped_ ? std::string_view(mapped_, mapped_size_) : std::string_view(buffer_.get(), size_);
  }
  // After each file: unmaps it, and gives the buffer back when it grew past 256 KiB, so an idle
  // worker does not hold the largest file it read.
  void Release();

 private:
  static constexpr size_t kReadLimit = 4 << 20;
  static constexpr size_t kKeep = 256 << 10;
  void Unmap();
  // Not a std::string: its resize zero-filled every byte before read() wrote it (200 MB a round).
  std::unique_ptr<char[]> buffer_;
  size_t capacity_ = 0, size_ = 0;
  const char* mapped_ = nullptr;
  size_t mapped_size_ = 0;
};

// Bytes of the files being worked on at once. A file's working set (its tokens, the per-file
// indexes, the hazard checks' tables) is several times its size, so the workers together take at
// most kLimit bytes at a time: peak memory follows the largest files, not the number of workers
// times them. A file over the limit is worked on alone. 16 MiB since the findings round takes the
// largest files first (scan/audit_run.cc): at 4 MiB, CUTLASS's 2.8 MB headers ran one at a time
// while the other workers waited (16 cores, FlashInfer + CUTLASS: 0.26 -> 0.19 s); the GPU
// machine's environment peaks at 120-150 MB with it.
class ByteBudget {
 public:
  static constexpr size_t kLimit = 16 << 20;
  size_t Take(size_t bytes);
  void Give(size_t bytes);

 private:
  std::mutex mutex_;
  std::condition_variable freed_;
  size_t in_flight_ = 0;
};

}  // namespace archpatch::scan
