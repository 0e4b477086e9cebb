// `archpatch audit` as a library call: walk the PATHs, prefilter, scan each file on a small
// thread pool, keep the gates that exclude the target arch. cli/cmd_audit.cc only parses options
// and prints what comes back.
#pragma once

#include <functional>
#include <future>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "arch/arch.h"
#include "cuda/macro_env.h"
#include "cuda/tokens.h"
#include "gate/finding.h"
#include "python/scanner.h"
#include "scan/walk.h"
#include "util/result.h"
#include "util/shared_loops.h"

namespace archpatch::cuda {
struct DirectiveScan;   // cuda/directives.h
struct BranchVerdicts;  // cuda/directives.h
struct AllFunctions;    // cuda/functions.h
}  // namespace archpatch::cuda

namespace archpatch::scan {

// One CUDA/C++ file with a kept cuda-gate finding, for a pass (the hazard checks:
// hazard::HazardPass) that runs once per such file, inside the scan that found its gates: the
// package's macros settle before any file's gates are found (scan/audit_run.h), so that scan is
// the file's only one.
struct ScannedFile {
  const std::string& path;
  std::string_view contents;
  std::vector<cuda::Token>& tokens;  // the scan's lex of the whole file; the pass may take them
  const cuda::MacroEnv& env;         // as the file's gates were evaluated (with the package's
                                     // per-arch macros, less those the file #defines itself)
  // The gate scan's reading of the file's directives and their verdicts in `env` over the audit's
  // arches (scan::VerdictArches), when it read them; a pass need not read them again.
  const cuda::DirectiveScan* directives = nullptr;
  const cuda::BranchVerdicts* verdicts = nullptr;
  // What else the gate scan built of the file, when it did: its line index (the pass may take it)
  // and its functions (a gate was located), so a pass need not build them again.
  cuda::LineIndex* lines = nullptr;
  const cuda::AllFunctions* functions = nullptr;
  // Where the pass may offer a long per-gate loop to the round's idle workers (util/shared_loops.h).
  SharedLoops* loops = nullptr;
};
// Gets the file's findings that the audit keeps (it may annotate them and add its own) and the
// audit's warnings. Runs on worker threads: it must be safe to call concurrently.
using FilePass = std::function<void(ScannedFile& file, std::vector<Finding>& findings, std::vector<Error>& warnings)>;
// A Python module's kept findings, with its bytes and the scan's tokens of them, while a worker
// still holds them.
using PythonPass = std::function<void(const std::string& file, std::string_view contents,
                                      const python::ModuleSyntax& syntax, std::vector<Finding>& kept)>;

struct AuditOptions {
  arch::Arch target;
  std::vector<arch::Arch> against;  // empty: every other arch of the table
  cuda::MacroEnv env;
  std::vector<std::string> paths;
  int jobs = 0;           // worker threads; 0: one per core
  bool prefilter = true;  // off only in tests that prove the prefilter drops nothing
  // The package model keeps the summaries of modules without gates of their own from the scan,
  // up to this many bytes of their sources; past it, a module it needs is scanned again at the
  // merge (tests set 0: every one again).
  size_t kept_summary_bytes = 32 << 20;
  // C/C++ files of at least this many bytes are lexed ahead of the findings round
  // (scan/lex_ahead.h); tests set 0 (every file the first read may keep a gate of) or SIZE_MAX.
  size_t lex_ahead_from = 1 << 20;
  WalkOptions walk;  // tests/, benchmarks/, docs/, examples/ left out unless walk.keep_tests
  // Called from the worker threads after each file (files done, files in all): progress on a terminal.
  std::function<void(size_t, size_t)> on_file_done;
  FilePass after_cuda_file;      // called for each CUDA/C++ file with a kept cuda-gate finding; may be empty
  PythonPass after_python_file;  // called for each Python module with a kept finding; may be empty
  // Called once with the modules' kept findings after the package model, on the worker that ran
  // it (beside the C/C++ files still being read): those it resolved were not seen by
  // after_python_file. What it returns (work it started on the findings, when valid) is waited
  // for before the findings round's end takes them; work done in the call itself runs on that
  // worker, beside the others, instead of on a thread competing with them all. May be empty.
  std::function<std::future<void>(std::vector<Finding>& findings)> after_package_model;
  // The rounds' state (the directives and definitions kept, the package model's leftovers) is left
  // to the process's end (util/process_end.h) instead of freed before Audit returns: for a command
  // whose last use of it is this audit (freeing it was 0.7-0.9 ms of the serial end on 16 cores).
  bool leave_state_to_process_end = false;
};

struct AuditReport {
  std::vector<arch::Arch> arches;           // the verdict columns: target first, then the others
  std::vector<Finding> findings;            // gates excluding the target, sorted by file, line, column
  size_t files_scanned = 0;                 // files read (the prefilter's rejects included)
  size_t files_parsed = 0;                  // files libclang or the Python scanner examined
  std::vector<Error> errors;                // files skipped: unreadable, unparsable
  std::vector<Error> warnings;              // malformed conditions, unbalanced directives (file goes on)
  std::vector<std::string> named_binaries;  // PATHs that are binaries, not read as source (walk.h)
  // The feature macros the package #defines per arch, as the findings were evaluated with them
  // (cuda::MacroEnv::per_arch; the hazard checks take the same).
  std::map<std::string, std::map<std::string, Tri>, std::less<>> package_macros;
};

// The arches findings carry verdicts for: the target, then --against or the rest of the table.
// The worker threads for AuditOptions::jobs: as many as asked, or one per core for 0.
int WorkerCount(int jobs);

std::vector<arch::Arch> VerdictArches(const arch::Arch& target, const std::vector<arch::Arch>& against);

// Whether a finding keeps `target` out where another of `others` gets in: false on the target,
// true or unknown on at least one other, and the branch itself is the cause (its enclosing
// branch does not already exclude the target, no earlier branch of its chain is taken there).
bool ExcludesTarget(const Finding& finding, const std::string& target, const std::vector<std::string>& others);
// The findings of `found` that ExcludesTarget keeps, in their order.
std::vector<Finding> KeepExclusions(std::vector<Finding> found, const std::string& target,
                                    const std::vector<std::string>& others);

// The process settings an audit's threads need (libclang's), made once and
// before any thread starts: Audit makes them, and a caller that starts threads of its own beside
// the audit calls this first.
void PrepareAuditProcess();

// Errors only for PATHs that do not exist (usage error); every per-file problem is in the report.
Result<AuditReport> Audit(const AuditOptions& options);

}  // namespace archpatch::scan
