// Progress of a long audit on a terminal: "archpatch: scanned 412/1107 files" on stderr, rewritten
// in place, only after the first second, only when stderr is a terminal and the output is for
// people (never with --json or --sarif), and erased before the report prints.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <mutex>

namespace archpatch::cli {

class TerminalProgress {
 public:
  explicit TerminalProgress(bool for_people);
  ~TerminalProgress() { Finish(); }
  // A callback for scan::AuditOptions::on_file_done; empty when progress is off.
  std::function<void(size_t, size_t)> Callback();
  void Finish();  // erase the line (idempotent)

 private:
  void Update(size_t done, size_t total);
  bool enabled_ = false;
  bool shown_ = false;
  std::mutex mutex_;
  std::chrono::steady_clock::time_point start_, last_;
};

}  // namespace archpatch::cli
