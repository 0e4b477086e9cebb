// One run of the audit's worker pool over the file list: scan/audit.cc runs it once to read every
// C/C++ file (kRead), up to twice more for the package's macros (kDefinitions), and once to find
// the gates with those macros settled (kFindings). Each file is analysed once, under the
// environment its findings keep: the first release found every file's gates under the user's
// macros first, then scanned again the files that test a package macro (CUTLASS's 1-3 MB
// cute/arch/mma_sm90_gmma*.hpp), half of the C++ analysis thrown away.
#pragma once

#include <atomic>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cuda/gates.h"
#include "scan/audit.h"
#include "scan/directive_store.h"
#include "scan/file_bytes.h"
#include "scan/lex_ahead.h"
#include "scan/prefilter.h"
#include "scan/python_modules.h"

namespace archpatch::scan {

using DefinitionsByFile = std::map<std::string, std::vector<cuda::MacroDefinition>>;

// ExcludesTarget; before a #if branch is located in its file (`located` false: a draft, what
// the target's earlier branch holds unknown) it may only err towards keeping the finding.
bool Excludes(const Finding& f, const std::string& target, const std::vector<std::string>& others, bool located);

enum class Round {
  kRead,         // every C/C++ file: what the prefilter lets through, its directive names, the
                 // definitions of those it lexes (DirectiveStore keeps all of it)
  kDefinitions,  // the files whose directives name a package macro found so far: their definitions
  kFindings,     // every file that may hold a gate, with the package's macros: the report
};

// What an audit's rounds share (scan/audit.cc makes them once): the directives the first read
// kept, the Python modules, the bytes read at once and the largest files lexed ahead.
struct SharedByRounds {
  DirectiveStore& store;
  PythonModules& python;
  ByteBudget& budget;
  LexAhead& ahead;
};

class AuditRun {
 public:
  // `env`: options.env, with the package's per-arch macros for kFindings once there are some;
  // `names`: the package macros so far (kDefinitions: only files that mention one are read) or in
  // all (kFindings: a file that mentions one has its directives read whatever the prefilter says).
  // `shared.python`: the audit's modules, which a round's workers scan while they wait for its last
  // C/C++ files, and kFindings takes the rest of; `shared.budget` bounds the bytes read at once;
  // kRead starts lexing the largest files ahead (`shared.ahead`), kFindings takes them.
  // `files` is held, not copied: the audit's list, which outlives every round (PythonModules holds
  // it too); each round copied it, 3,719 paths on FlashInfer + CUTLASS, on the serial stretch
  // between rounds.
  AuditRun(const AuditOptions& options, const std::vector<std::string>& files, const cuda::MacroEnv& env,
           SharedByRounds shared, Round round, const std::set<std::string, std::less<>>* names = nullptr);

  AuditReport Run();

  DefinitionsByFile& definitions() { return definitions_; }
  const std::set<std::string>& rescanned() const { return rescanned_; }  // kDefinitions: the files read again

 private:
  struct WorkerResult {
    std::vector<Finding> findings;
    std::vector<Error> errors, warnings;
    DefinitionsByFile definitions;
    std::vector<std::string> rescanned;
    size_t parsed = 0;
  };

  void Work(WorkerResult& out);
  void ScanOne(size_t index, WorkerResult& out);
  bool DefineAgain(size_t index, WorkerResult& out);
  void ScanBytes(size_t index, FileBytes& file, WorkerResult& out);
  void ScanCpp(size_t index, std::string_view contents, WorkerResult& out);
  cuda::GateKinds KindsOf(size_t index, std::string_view contents, bool mentions) const;
  cuda::GateKinds FirstReadKinds(size_t index, std::string_view contents, bool& complete) const;
  std::vector<cuda::Token> TokensFor(std::string_view contents) const;
  void CheckHazards(const std::string& path, std::string_view contents, std::vector<cuda::Token>& tokens,
                    const cuda::MacroEnv& env, cuda::CudaGates& gates, std::vector<Finding>& kept,
                    std::vector<Error>& warnings);
  AuditReport Merge(std::vector<WorkerResult>& results);
  std::vector<size_t> FindingsOrder();

  const AuditOptions& options_;
  const cuda::MacroEnv& env_;
  DirectiveStore& store_;
  PythonModules& python_;
  ByteBudget& budget_;
  LexAhead& ahead_;
  const Round round_;
  const std::set<std::string, std::less<>>* names_;
  std::optional<DirectiveNames::Wanted> wanted_;  // names_, hashed
  std::optional<NameFilter> filter_;              // names_, to look for in a text
  DefinitionsByFile definitions_;
  std::set<std::string> rescanned_;
  const std::vector<std::string>& files_;
  Prefilter prefilter_;
  std::vector<arch::Arch> arches_;
  std::string target_;
  std::vector<std::string> others_;
  const std::vector<size_t>* order_ = nullptr;  // the order workers take the files in (Run)
  std::vector<size_t> findings_order_;          // kFindings: order_
  std::atomic<size_t> next_{0};
  std::atomic<size_t> done_{0};  // files this round's workers are done with
  SharedLoops loops_;            // offered by the workers on the largest files, taken by idle ones
};

}  // namespace archpatch::scan
