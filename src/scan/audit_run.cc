#include "scan/audit_run.h"

#include <algorithm>

#include <spdlog/spdlog.h>

#include "cuda/directive_lines.h"
#include "cuda/directives.h"
#include "cuda/tokens.h"
#include "scan/findings_order.h"
#include "scan/scan.h"
#include "util/identifier.h"
#include "util/worker_pool.h"

namespace archpatch::scan {
namespace {

// Whether `verdicts` (when there are any) hold `value` for `arch`.
bool Holds(const std::optional<gate::Verdicts>& verdicts, const std::string& arch, Tri value) {
  return verdicts && gate::VerdictOn(*verdicts, arch) == value;
}

// Whether the branch the target takes instead refuses or holds nothing.
bool TargetTakesLess(const Finding& f) {
  if (!f.exclusion || !f.exclusion->target_takes) return false;
  const gate::BlockHolds holds = f.exclusion->target_takes->holds;
  return holds == gate::BlockHolds::kRefusal || holds == gate::BlockHolds::kNothing;
}

}  // namespace

bool Excludes(const Finding& f, const std::string& target, const std::vector<std::string>& others, bool located) {
  if (f.VerdictFor(target) != Tri::kFalse) return false;
  if (f.direction == gate::Direction::kFallback) return false;      // the target takes the other path
  if (Holds(f.chain.enclosing, target, Tri::kFalse)) return false;  // the outer gate is the cause
  // The target takes an earlier branch of the chain: excluded only when that branch refuses or is
  // empty (`#if !defined(__CUDA_ARCH_FEAT_SM90_ALL) <error> #else <kernel body>`).
  if (located && Holds(f.chain.earlier_taken, target, Tri::kTrue) && !TargetTakesLess(f)) return false;
  for (const std::string& other : others) {
    if (f.VerdictFor(other) != Tri::kFalse) return true;
  }
  return false;
}

AuditRun::AuditRun(const AuditOptions& options, const std::vector<std::string>& files, const cuda::MacroEnv& env,
                   SharedByRounds shared, Round round, const std::set<std::string, std::less<>>* names)
    : options_(options),
      env_(env),
      store_(shared.store),
      python_(shared.python),
      budget_(shared.budget),
      ahead_(shared.ahead),
      round_(round),
      names_(names),
      wanted_(names ? std::optional<DirectiveNames::Wanted>(*names) : std::nullopt),
      filter_(names ? std::optional<NameFilter>(*names) : std::nullopt),
      files_(files),
      prefilter_(env),
      arches_(VerdictArches(options.target, options.against)) {
  target_ = options.target.name();
  for (size_t a = 1; a < arches_.size(); ++a) others_.push_back(arches_[a].name());
}

// The findings round's order (scan/findings_order.h), from what the earlier rounds noted.
std::vector<size_t> AuditRun::FindingsOrder() {
  return FindingsRoundOrder(store_.LargestFirst(), [&](size_t index) {
    const bool module = python_.IsModule(index);
    const size_t size = store_.SizeOf(index);
    return OrderFacts{module, !module && ahead_.Takes(size), size, !module && store_.First(index).runtime};
  });
}

AuditReport AuditRun::Run() {
  // Before any worker starts.
  if (round_ == Round::kFindings) {
    findings_order_ = FindingsOrder();
    order_ = &findings_order_;
  } else {
    order_ = &store_.LargestFirst();
  }
  int jobs = WorkerCount(options_.jobs);
  jobs = std::min<int>(jobs, std::max<size_t>(1, files_.size()));
  std::vector<WorkerResult> results(jobs);
  WorkerPool::Shared().Run(jobs, [this, &results](size_t j) { Work(results[j]); });
  if (const size_t helped = loops_.helped())
    spdlog::debug("audit: {} shares of per-gate loops run by idle workers", helped);
  return Merge(results);
}

AuditReport AuditRun::Merge(std::vector<WorkerResult>& results) {
  AuditReport report;
  report.arches = arches_;
  report.files_scanned = files_.size();
  PythonModules::Report modules;
  if (round_ == Round::kFindings) modules = python_.Take();
  std::vector<std::vector<Finding>*> findings;
  for (WorkerResult& r : results) {
    findings.push_back(&r.findings);
    std::move(r.errors.begin(), r.errors.end(), std::back_inserter(report.errors));
    std::move(r.warnings.begin(), r.warnings.end(), std::back_inserter(report.warnings));
    report.files_parsed += r.parsed;
    definitions_.merge(r.definitions);
    rescanned_.insert(r.rescanned.begin(), r.rescanned.end());
  }
  findings.push_back(&modules.findings);
  report.findings = SortedFindings(findings);
  if (round_ != Round::kFindings) return report;
  std::move(modules.errors.begin(), modules.errors.end(), std::back_inserter(report.errors));
  report.files_parsed += modules.parsed;
  return report;
}

void AuditRun::Work(WorkerResult& out) {
  // The largest files first (the sizes the walk noted), so that a round does not end waiting for
  // one worker on a big file taken last: on 16 cores, FlashInfer + CUTLASS's rounds were mostly
  // that wait (CUTLASS's 1-3 MB cute/arch/mma_sm90_gmma*.hpp).
  const std::vector<size_t>& order = *order_;
  for (;;) {
    // The per-gate loops a large file offers before the next file: on 16 cores CUTLASS's two
    // 2.8-2.9 MB headers took 20-36 ms each on their workers and ended the findings round 4-8 ms
    // after the others, which were busy with files until then and could only help at the end.
    if (round_ == Round::kFindings) loops_.HelpWhile([] { return false; });
    const size_t k = next_++;
    if (k >= files_.size()) break;
    ScanOne(order[k], out);
    const size_t done = ++done_;
    if (done == files_.size()) loops_.Wake();  // the helpers below may leave
    if (round_ != Round::kFindings) continue;
    if (options_.on_file_done) options_.on_file_done(done, files_.size());
    python_.ModelWhenScanned();  // beside the C/C++ files still being read
  }
  // The round's last files are read on other workers: Python modules meanwhile, the smallest
  // first, so that the round ends at most one small module later. Not in a package-macro round:
  // its few files (46 and 10 on FlashInfer + CUTLASS) took a millisecond on 16 cores, its
  // fillers 2-3 more, every core but theirs idle until the round's end.
  if (round_ == Round::kRead) {
    while (done_ < files_.size() && python_.ScanSmallest()) {
    }
  }
  // Then the per-gate loops that the workers on the last, largest files offer (the hazard
  // checks' classification of CUTLASS's 700-gate headers), until the round's last file is done.
  loops_.HelpWhile([this] { return done_ < files_.size(); });
}

void AuditRun::ScanOne(size_t index, WorkerResult& out) {
  if (python_.IsModule(index)) {  // it defines no macro: any round's worker may scan it
    if (round_ == Round::kFindings) python_.Scan(index);
    return;
  }
  if (round_ == Round::kDefinitions) {
    if (DefineAgain(index, out)) return;
    if (!store_.MayMention(index, *wanted_)) return;  // its directives name none of them
    if (!store_.MayDefine(index)) return;             // nor define anything: no definition to learn
  }
  if (round_ == Round::kFindings) {
    if (store_.First(index).kinds_ahead) {
      const AheadKinds found = ahead_.Kinds(index).value_or(AheadKinds{});
      store_.CompleteFirstRead(index, found.nv_target, found.runtime);
    }
    const DirectiveStore::FirstRead& first = store_.First(index);
    const bool mentions = names_ && store_.MayMention(index, *wanted_);
    if (first.read && !first.nv_target && !first.runtime && !mentions) {
      // Its directives were evaluated in the first read, in the environment this round would
      // use, and kept no branch: the file is not read again (114 of FlashInfer 0.6.16 +
      // CUTLASS's 406 C/C++ files of this round). It counts as parsed, as before.
      if (!first.directives) return;
      if (!first.directive_findings) return void(++out.parsed);
    }
  }
  thread_local FileBytes file;
  const size_t size = store_.SizeOf(index);
  const size_t taken = budget_.Take(size);
  ScanBytes(index, file, out);
  file.Release();
  budget_.Give(taken);
}

// A definitions round, from what the store knows of the file: true when that was enough.
bool AuditRun::DefineAgain(size_t index, WorkerResult& out) {
  switch (store_.Of(index)) {
    case DirectiveStore::Known::kUnread: return false;
    case DirectiveStore::Known::kNoDefinitions: return true;
    case DirectiveStore::Known::kKept: break;
  }
  const std::string& path = files_[index];
  const cuda::DirectiveScan& scan = store_.Scan(index);
  if (!DirectivesMention(scan, *filter_)) return true;  // evaluates as before
  out.rescanned.push_back(path);
  out.definitions[path] = cuda::DefinitionsOf(scan, arches_, env_, path);
  return true;
}

void AuditRun::ScanBytes(size_t index, FileBytes& file, WorkerResult& out) {
  const std::string& path = files_[index];
  Status loaded = file.Load(path);
  if (!loaded) {
    if (round_ == Round::kFindings) out.errors.push_back(loaded.error());  // reported once
    return;
  }
  ScanCpp(index, file.view(), out);
}

// What a round reads of the file: kRead what the prefilter lets through (kept for kFindings);
// kDefinitions only directives; kFindings what kRead found, and the directives of a file that
// names a package macro (the prefilter looks for the compiler's macros only).
cuda::GateKinds AuditRun::KindsOf(size_t index, std::string_view contents, bool mentions) const {
  cuda::GateKinds kinds;
  if (round_ == Round::kDefinitions) {
    kinds.nv_target = kinds.runtime = false;
    return kinds;
  }
  const DirectiveStore::FirstRead& first = store_.First(index);
  bool complete = true;  // kinds.nv_target and kinds.runtime are known
  if (round_ == Round::kFindings && first.read) {
    kinds.directives = first.directives, kinds.nv_target = first.nv_target, kinds.runtime = first.runtime;
  } else if (options_.prefilter && round_ == Round::kRead) {
    kinds = FirstReadKinds(index, contents, complete);
  } else if (options_.prefilter) {
    kinds = prefilter_.Check(contents);
  }
  if (round_ == Round::kRead) {
    DirectiveStore::FirstRead read{true, kinds.directives, kinds.nv_target, kinds.runtime};
    read.kinds_ahead = !complete;
    store_.KeepFirstRead(index, DirectiveNames::Of(contents), read);
    kinds.nv_target = kinds.runtime = false;  // definitions only
  }
  if (mentions) kinds.directives = true;
  return kinds;
}

// kRead: what the prefilter lets through. A file large enough to be lexed ahead is checked only
// until its directives are known to be needed; a thread beside the one lexing it looks for the rest
// (`complete` false; scan/lex_ahead.h).
cuda::GateKinds AuditRun::FirstReadKinds(size_t index, std::string_view contents, bool& complete) const {
  complete = true;
  const size_t size = store_.SizeOf(index);
  if (!ahead_.Takes(size)) return prefilter_.Check(contents);
  cuda::GateKinds kinds = prefilter_.CheckDirectivesFirst(contents, complete);
  if (complete || ahead_.Start(index, files_[index], size, prefilter_)) return kinds;
  complete = true;
  return prefilter_.Check(contents);
}

void AuditRun::ScanCpp(size_t index, std::string_view contents, WorkerResult& out) {
  const std::string& path = files_[index];
  if (round_ == Round::kDefinitions && !filter_->MentionedIn(contents)) return;
  if (round_ == Round::kDefinitions) out.rescanned.push_back(path);
  // kFindings: a file that names no package macro is read under the user's macros alone (the
  // package's could not change a verdict; copying them into each file's environment costs).
  const bool mentions =
      round_ == Round::kFindings && names_ && store_.MayMention(index, *wanted_) && filter_->MentionedIn(contents);
  const cuda::MacroEnv& env = round_ == Round::kFindings && !mentions ? options_.env : env_;
  cuda::GateKinds kinds = KindsOf(index, contents, mentions);
  if (!kinds.directives && !kinds.nv_target && !kinds.runtime) return;
  if (round_ != Round::kDefinitions) {  // kRead: only whether the findings round may keep a branch
    kinds.wanted = [this](const Finding& draft) { return Excludes(draft, target_, others_, /*located=*/false); };
  }
  kinds.only_whether_wanted = round_ != Round::kFindings;
  // Definitions alone where nothing else is asked: a package-macro round, and the first read of a
  // file lexed ahead (the findings round evaluates its branches with the tokens lexed ahead; on
  // 16 cores its evaluation here, CUTLASS's 2.8-2.9 MB headers', ended the first read).
  kinds.definitions_only =
      round_ == Round::kDefinitions || (round_ == Round::kRead && ahead_.Takes(store_.SizeOf(index)));
  if (round_ == Round::kFindings) {
    kinds.read = store_.Kept(index);
    // A file long enough to end the round offers its branches' drafting to idle workers (offered
    // by every file of more than 64 branches, the GPU machine measured 2-5% more CPU and no
    // shorter run).
    if (contents.size() >= kLongFrom) kinds.loops = &loops_;
  }
  if (round_ == Round::kRead) ahead_.Start(index, path, store_.SizeOf(index));
  if (round_ == Round::kFindings) ++out.parsed;
  // Where the definitions alone are wanted (a package-macro round, the first read of a file lexed
  // ahead), the directives up to the file's last #define or #undef decide them (16 cores:
  // CUTLASS's 2.8 MB headers' first read, 14-17 ms of skimming and reading 737 chains after their
  // one #define, ended the first read).
  const bool prefix = kinds.definitions_only;
  if (prefix) contents = contents.substr(0, std::min(contents.size(), store_.DefinitionsEnd(index)));
  if (prefix && contents.empty()) return;  // it defines nothing
  std::vector<cuda::Token> tokens;
  if (std::optional<LexedFile> lexed = round_ == Round::kFindings ? ahead_.Take(index) : std::nullopt;
      lexed && lexed->size == contents.size()) {
    tokens = std::move(lexed->tokens);
    kinds.functions = std::move(lexed->functions);
    if (!kinds.read) kinds.read = std::move(lexed->directives);
  } else {
    tokens = TokensFor(contents);
  }
  Result<cuda::CudaGates> gates = cuda::ScanCudaGates(path, contents, tokens, arches_, env, kinds);
  if (!gates) {
    if (round_ == Round::kFindings) out.errors.push_back(gates.error());
    return;
  }
  if (round_ != Round::kFindings) {
    if (kinds.directives) store_.Keep(index, gates->directives, !gates->definitions.empty(), /*whole=*/!prefix);
    if (round_ == Round::kRead && kinds.directives && !kinds.definitions_only && !gates->wanted_any &&
        gates->warnings.empty()) {
      store_.NoteNoDirectiveFindings(index);
    }
    if (!gates->definitions.empty()) out.definitions[path] = std::move(gates->definitions);
    return;
  }
  std::move(gates->warnings.begin(), gates->warnings.end(), std::back_inserter(out.warnings));
  std::vector<Finding> kept = KeepExclusions(std::move(gates->findings), target_, others_);
  const bool gated =
      std::any_of(kept.begin(), kept.end(), [](const Finding& f) { return f.kind == gate::Kind::kCudaGate; });
  if (gated && options_.after_cuda_file && KindOf(path) == FileKind::kCuda) {
    CheckHazards(path, contents, tokens, env, *gates, kept, out.warnings);
  }
  std::move(kept.begin(), kept.end(), std::back_inserter(out.findings));
}

// The directive rounds read the file's directives alone (KindsOf): their lines, skimmed, are
// all they lex where the skim can (13.2 of the 36 MB lexed on FlashInfer 0.6.16 + CUTLASS were
// the first read's, nearly all of it lexed again by the findings round).
std::vector<cuda::Token> AuditRun::TokensFor(std::string_view contents) const {
  if (round_ != Round::kFindings) {
    if (std::optional<std::vector<cuda::Token>> lines = cuda::DirectiveLineTokens(contents)) return std::move(*lines);
  }
  return cuda::Tokenize(contents);
}

// The per-file pass (the hazard checks) on the file's kept findings, with the tokens the scan
// made and the environment its gates were evaluated in: the file's own #defines read as it says
// (cuda::WithoutOwnMacros), so widening `#if ... #define X` reaches the file's `#if X` blocks.
void AuditRun::CheckHazards(const std::string& path, std::string_view contents, std::vector<cuda::Token>& tokens,
                            const cuda::MacroEnv& env, cuda::CudaGates& gates, std::vector<Finding>& kept,
                            std::vector<Error>& warnings) {
  const cuda::DirectiveScan* directives = gates.directives.get();
  cuda::MacroEnv own;
  if (!env.per_arch.empty()) {
    own = directives ? cuda::WithoutOwnMacros(env, *directives)
                     : cuda::WithoutOwnMacros(env, cuda::ReadDirectives(tokens, contents, path));
  }
  ScannedFile scanned{path,
                      contents,
                      tokens,
                      env.per_arch.empty() ? env : own,
                      directives,
                      gates.verdicts.get(),
                      gates.lines ? &*gates.lines : nullptr,
                      gates.functions.get(),
                      &loops_};
  options_.after_cuda_file(scanned, kept, warnings);
}

}  // namespace archpatch::scan
