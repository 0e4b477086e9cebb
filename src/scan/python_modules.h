// The audit's Python modules: scanned in the time the C/C++ rounds wait, and the package model.
//
// A module defines no macro, so its scan needs nothing the C/C++ rounds settle (scan/audit_run.h).
// A worker with no C/C++ file left to take in the first read scans modules, smallest first, while
// the round's last files are read on other workers (not in the short package-macro rounds, which
// they outlasted); while the package's macros settle, most workers scan modules, largest first,
// beside those rounds (scan/audit.cc); the findings round takes the rest before most of
// its C/C++ files (bar the few longest; AuditRun::FindingsOrder), largest first. Once the last module is
// scanned, a findings-round worker runs the package model beside the C/C++ files still being read:
// on 16 cores, Python was a fifth of the findings round and the package model most of the
// single-threaded merge after it.
#pragma once

#include <atomic>
#include <condition_variable>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "python/module_names.h"
#include "python/module_summary.h"
#include "scan/audit.h"
#include "scan/file_bytes.h"

namespace archpatch::scan {

class PythonModules {
 public:
  // `options`, `files`, `sizes` (by file index, as the walk noted them) and `budget` (shared with
  // the C/C++ rounds) outlive it.
  PythonModules(const AuditOptions& options, const std::vector<std::string>& files, const std::vector<size_t>& sizes,
                ByteBudget& budget);

  bool IsModule(size_t index) const { return index < taken_.size() && is_module_[index]; }
  // Scans module `index` unless a worker took it already.
  void Scan(size_t index);
  // Scans the smallest module no worker took yet, if it is at most kFillerBytes: false when none
  // was left.
  bool ScanSmallest();
  // Scans the largest module no worker took yet: false when none was left. For the workers the
  // package-macro rounds leave idle (scan/audit.cc).
  bool ScanLargest();
  // The package model, on the first thread to ask once every module is scanned: true when it ran
  // (or had run) by then.
  bool ModelWhenScanned();

  struct Report {
    std::vector<Finding> findings;  // the kept ones, the package model's among them
    std::vector<Error> errors;
    size_t parsed = 0;
  };
  // What the modules add to the audit's report, once every module is scanned: waits for those
  // still being scanned (a worker that took one beside the package-macro rounds may still be at
  // it), then runs the package model if no worker ran it.
  Report Take();
  // Waits for the thread freeing the model's summaries (as the destructor does): before the
  // object is left to the process's end, which must find no thread of it still running.
  void Drain() {
    if (freed_.valid()) freed_.wait();
  }

 private:
  // The largest module the first read's idle worker takes: 1-2 ms, so that the round ends at most
  // that much later (a 323 KB module, taken at the end of a definitions round, held it 7 ms on 16
  // cores). The larger modules (66 of FlashInfer's 681, half their bytes) are left to the findings
  // round, which has idle workers too while it reads CUTLASS's largest headers.
  static constexpr size_t kFillerBytes = 64 << 10;

  // One module's scan, added to the others' under the lock.
  struct ScannedModule {
    Report own;
    std::optional<python::ModuleNames> names;
    std::optional<python::ModuleSummary> gated, other;
    std::vector<python::BranchChain> chains;
  };

  size_t SizeOf(size_t index) const { return index < sizes_.size() ? sizes_[index] : 0; }
  void ScanModule(size_t index);
  ScannedModule Read(size_t index, FileBytes& file);
  void Add(size_t index, ScannedModule scanned);
  bool KeepSummary(size_t source_bytes);
  void Model();
  std::vector<python::ModuleSummary> SummariesThatMatter(const std::vector<python::ModuleNames>& names);
  void SummarizeAgain(const std::vector<size_t>& which, std::vector<python::ModuleSummary>& modules) const;

  const AuditOptions& options_;
  const std::vector<std::string>& files_;
  const std::vector<size_t>& sizes_;
  ByteBudget& budget_;
  std::vector<arch::Arch> arches_;
  std::string target_;
  std::vector<std::string> others_;
  std::vector<bool> is_module_;           // by file index
  std::vector<std::atomic<bool>> taken_;  // by file index: a worker scans each module once
  std::vector<size_t> smallest_first_;    // the modules' file indices
  std::atomic<size_t> next_smallest_{0};  // into smallest_first_
  std::atomic<size_t> next_largest_{0};   // into smallest_first_, from its end
  std::atomic<size_t> scanned_{0};        // modules done
  std::atomic<size_t> summary_bytes_{0};  // of the sources whose summaries other_modules_ keeps
  std::atomic<bool> model_claimed_{false};
  std::future<void> after_model_;  // AuditOptions::after_package_model's work on report_.findings
  std::future<void> freed_;        // the summaries the model read, freed (waited for when destroyed)

  std::mutex mutex_;                     // guards the modules' results, until Model
  std::condition_variable all_scanned_;  // notified when scanned_ reaches the modules' count
  Report report_;
  std::vector<std::pair<size_t, python::ModuleNames>> module_names_;  // by file index
  std::map<std::string, python::ModuleSummary> gated_modules_;        // whole: modules with gates of their own
  std::map<std::string, python::ModuleSummary> other_modules_;        // the others', within kept_summary_bytes
  std::map<std::string, std::vector<python::BranchChain>> chains_;    // of modules that keep a finding
};

}  // namespace archpatch::scan
