#include "cli/progress.h"

#include <cstdio>
#include <unistd.h>

#include <fmt/format.h>

namespace archpatch::cli {

TerminalProgress::TerminalProgress(bool for_people)
    : enabled_(for_people && isatty(fileno(stderr))), start_(std::chrono::steady_clock::now()), last_(start_) {}

std::function<void(size_t, size_t)> TerminalProgress::Callback() {
  if (!enabled_) return {};
  return [this](size_t done, size_t total) { Update(done, total); };
}

void TerminalProgress::Update(size_t done, size_t total) {
  using namespace std::chrono_literals;
  const auto now = std::chrono::steady_clock::now();
  if (now - start_ < 1s) return;
  std::lock_guard<std::mutex> lock(mutex_);
  if (now - last_ < 100ms && done != total) return;
  last_ = now;
  shown_ = true;
  fmt::print(stderr, "\rarchpatch: scanned {}/{} files", done, total);
  std::fflush(stderr);
}

void TerminalProgress::Finish() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!shown_) return;
  fmt::print(stderr, "\r\033[K");
  std::fflush(stderr);
  shown_ = false;
}

}  // namespace archpatch::cli
