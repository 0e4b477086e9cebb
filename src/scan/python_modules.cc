#include "scan/python_modules.h"

#include <algorithm>
#include <optional>
#include <set>

#include "python/chains.h"
#include "python/package.h"
#include "python/scanner.h"
#include "scan/file_bytes.h"
#include "scan/scan.h"
#include "util/parallel.h"

namespace archpatch::scan {

PythonModules::PythonModules(const AuditOptions& options, const std::vector<std::string>& files,
                             const std::vector<size_t>& sizes, ByteBudget& budget)
    : options_(options),
      files_(files),
      sizes_(sizes),
      budget_(budget),
      arches_(VerdictArches(options.target, options.against)),
      is_module_(files.size()),
      taken_(files.size()) {
  target_ = options.target.name();
  for (size_t a = 1; a < arches_.size(); ++a) others_.push_back(arches_[a].name());
  for (size_t i = 0; i < files.size(); ++i) {
    if (KindOf(files[i]) != FileKind::kPython) continue;
    is_module_[i] = true;
    smallest_first_.push_back(i);
  }
  std::stable_sort(smallest_first_.begin(), smallest_first_.end(),
                   [&](size_t a, size_t b) { return SizeOf(a) < SizeOf(b); });
}

void PythonModules::Scan(size_t index) {
  if (!taken_[index].exchange(true)) ScanModule(index);
}

bool PythonModules::ScanSmallest() {
  for (size_t k = next_smallest_++; k < smallest_first_.size(); k = next_smallest_++) {
    if (SizeOf(smallest_first_[k]) > kFillerBytes) {
      next_smallest_ = smallest_first_.size();
      return false;
    }
    if (!taken_[smallest_first_[k]].exchange(true)) {
      ScanModule(smallest_first_[k]);
      return true;
    }
  }
  return false;
}

bool PythonModules::ScanLargest() {
  for (size_t k = next_largest_++; k < smallest_first_.size(); k = next_largest_++) {
    const size_t index = smallest_first_[smallest_first_.size() - 1 - k];
    if (!taken_[index].exchange(true)) {
      ScanModule(index);
      return true;
    }
  }
  return false;
}

bool PythonModules::ModelWhenScanned() {
  if (scanned_ < smallest_first_.size()) return false;
  if (!model_claimed_.exchange(true)) Model();
  return true;
}

PythonModules::Report PythonModules::Take() {
  for (size_t index : smallest_first_) Scan(index);  // none left untaken, so the wait below ends
  {
    std::unique_lock<std::mutex> lock(mutex_);
    all_scanned_.wait(lock, [&] { return scanned_ == smallest_first_.size(); });
  }
  // The findings round's workers have returned, and a helper runs no model: none is running it.
  if (!model_claimed_.exchange(true)) Model();
  if (after_model_.valid()) after_model_.get();
  return std::move(report_);
}

void PythonModules::ScanModule(size_t index) {
  thread_local FileBytes file;
  const size_t taken = budget_.Take(SizeOf(index));
  ScannedModule scanned = Read(index, file);
  file.Release();
  budget_.Give(taken);
  std::lock_guard<std::mutex> lock(mutex_);
  Add(index, std::move(scanned));
}

// The module's kept findings (linked to what it loads while its bytes are at hand) and what the
// package model needs of it.
PythonModules::ScannedModule PythonModules::Read(size_t index, FileBytes& file) {
  const std::string& path = files_[index];
  ScannedModule out;
  if (Status loaded = file.Load(path); !loaded) {
    out.own.errors.push_back(loaded.error());
    return out;
  }
  ++out.own.parsed;
  Result<python::ScannedModule> scanned = python::ScanPythonModule(path, file.view(), arches_);
  if (!scanned) {
    out.own.errors.push_back(scanned.error());
    return out;
  }
  out.names = python::NamesOf(scanned->summary);
  if (!scanned->summary.gates.empty()) {
    out.gated = std::move(scanned->summary);
  } else if (KeepSummary(file.view().size())) {
    out.chains = scanned->summary.chains;
    out.other = std::move(scanned->summary);
  } else {
    out.chains = std::move(scanned->summary.chains);
  }
  out.own.findings = KeepExclusions(std::move(scanned->findings), target_, others_);
  if (!out.own.findings.empty() && options_.after_python_file) {
    options_.after_python_file(path, file.view(), scanned->syntax, out.own.findings);
  }
  return out;
}

void PythonModules::Add(size_t index, ScannedModule scanned) {
  const std::string& path = files_[index];
  if (scanned.names) module_names_.emplace_back(index, std::move(*scanned.names));
  if (scanned.gated) gated_modules_.emplace(path, std::move(*scanned.gated));
  if (scanned.other) other_modules_.emplace(path, std::move(*scanned.other));
  if (!scanned.own.findings.empty() && !scanned.chains.empty()) chains_.emplace(path, std::move(scanned.chains));
  std::move(scanned.own.findings.begin(), scanned.own.findings.end(), std::back_inserter(report_.findings));
  std::move(scanned.own.errors.begin(), scanned.own.errors.end(), std::back_inserter(report_.errors));
  report_.parsed += scanned.own.parsed;
  if (++scanned_ == smallest_first_.size()) all_scanned_.notify_all();  // under mutex_: Take is waiting or not yet
}

// A module's summary is far smaller than its source: the kept ones (2 MB more at the peak on
// FlashInfer 0.4.0 + 0.6.16 + CUTLASS) spare the package model scanning again the 62 modules it
// needed there (1.6 MB, 72 M instructions).
bool PythonModules::KeepSummary(size_t source_bytes) {
  if (summary_bytes_.fetch_add(source_bytes) + source_bytes <= options_.kept_summary_bytes) return true;
  summary_bytes_ -= source_bytes;
  return false;
}

// The package model over every module, and the modules' findings it resolves or bounds: a
// module's own findings are marked again by the chains around them.
void PythonModules::Model() {
  // In the walk's order, whichever worker scanned each module: a module lookup of the package
  // model takes the first of a name.
  std::sort(module_names_.begin(), module_names_.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<python::ModuleNames> names;
  for (auto& [index, module] : module_names_) names.push_back(std::move(module));
  std::vector<python::ModuleSummary> modules = SummariesThatMatter(names);
  std::vector<Finding> resolved = python::PackageModel(std::move(modules), arches_).BranchFindings();
  python::PackageModel::DropBoundComparisons(report_.findings, resolved);
  python::MarkChainSiblings(chains_, report_.findings, resolved);
  std::erase_if(report_.findings, [&](const Finding& f) {  // a module's own findings, marked again
    return f.kind == gate::Kind::kPythonGate && !ExcludesTarget(f, target_, others_);
  });
  for (Finding& f : resolved) {
    if (ExcludesTarget(f, target_, others_)) report_.findings.push_back(std::move(f));
  }
  // The summaries are freed on a thread of their own: on the worker that ran the model, beside 15
  // busy ones, freeing them took 2-7 ms before the prebuilt links could start (16 cores).
  freed_ = std::async(std::launch::async, [names = std::move(module_names_), gated = std::move(gated_modules_),
                                           other = std::move(other_modules_), chains = std::move(chains_)]() mutable {
    names = {}, gated = {}, other = {}, chains = {};  // here: the captures live as long as the future
  });
  if (options_.after_package_model) after_model_ = options_.after_package_model(report_.findings);
}

// The package model's input, in scan order so that module lookups see every module as before:
// the full summary of each module ModulesThatMatter names (kept from the scan for a module with
// gates of its own, scanned again for the few others: those that import or call a predicate
// reaching a gate), and the file alone for the rest.
std::vector<python::ModuleSummary> PythonModules::SummariesThatMatter(const std::vector<python::ModuleNames>& names) {
  const std::set<std::string> wanted = python::ModulesThatMatter(names);
  std::vector<python::ModuleSummary> modules(names.size());
  std::vector<size_t> again;  // wanted, with no gates of their own: scanned again
  for (size_t m = 0; m < names.size(); ++m) {
    modules[m].file = names[m].file;
    auto whole = gated_modules_.find(names[m].file);
    if (!wanted.count(names[m].file)) {
      if (whole != gated_modules_.end() && !whole->second.chains.empty())
        chains_[names[m].file] = std::move(whole->second.chains);
      continue;
    }
    if (whole == gated_modules_.end()) {
      whole = other_modules_.find(names[m].file);  // kept from the scan, or scanned again
      if (whole == other_modules_.end()) {
        again.push_back(m);
        continue;
      }
    }
    modules[m] = std::move(whole->second);
    if (!modules[m].chains.empty()) chains_[modules[m].file] = std::move(modules[m].chains);
  }
  SummarizeAgain(again, modules);
  for (size_t m : again) {
    if (!modules[m].chains.empty()) chains_[modules[m].file] = std::move(modules[m].chains);
  }
  return modules;
}

// The modules at `which` scanned again, on threads of their own (each writes its own slots): on
// the trees of FlashInfer and CUTLASS these were 53 modules and 50 ms on one thread, before the
// scan kept summaries.
void PythonModules::SummarizeAgain(const std::vector<size_t>& which,
                                   std::vector<python::ModuleSummary>& modules) const {
  ParallelFor(which.size(), WorkerCount(options_.jobs), [&](size_t k) {
    python::ModuleSummary& module = modules[which[k]];
    FileBytes file;
    if (!file.Load(module.file)) return;
    Result<python::ScannedModule> scanned = python::ScanPythonModule(module.file, file.view(), arches_);
    if (scanned) module = std::move(scanned->summary);  // otherwise the scan reported it
  });
}

}  // namespace archpatch::scan
