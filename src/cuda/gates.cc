#include "cuda/gates.h"

#include <algorithm>
#include <memory>

#include "cuda/directives.h"
#include "cuda/exclusion.h"
#include "cuda/functions.h"
#include "cuda/nv_target.h"
#include "cuda/runtime_gates.h"
#include "cuda/tokens.h"

namespace archpatch::cuda {

namespace {

// Arch::name() of the table's arches, made once: Verdicts names every arch of every finding's
// verdicts, earlier-taken and enclosing lists (a string built per name was most of their cost).
std::string NameOf(const arch::Arch& a) {
  constexpr int kVariants = 3, kNumbers = 400;
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out(kVariants * kNumbers);
    for (const arch::Arch& t : arch::AllArches()) {
      const int v = static_cast<int>(t.variant);
      if (t.number() >= 0 && t.number() < kNumbers && v < kVariants) out[t.number() * kVariants + v] = t.name();
    }
    return out;
  }();
  const int v = static_cast<int>(a.variant);
  if (a.number() < 0 || a.number() >= kNumbers || v >= kVariants) return a.name();
  const std::string& known = names[a.number() * kVariants + v];
  return known.empty() ? a.name() : known;
}

}  // namespace

gate::Verdicts Verdicts(const std::vector<arch::Arch>& arches, const std::vector<Tri>& values) {
  gate::Verdicts out;
  out.reserve(std::min(arches.size(), values.size()));
  for (size_t a = 0; a < arches.size() && a < values.size(); ++a) out.push_back({NameOf(arches[a]), values[a]});
  return out;
}

namespace {

// Kleene OR of the earlier branches' own verdicts: whether the chain already took a branch.
std::vector<Tri> EarlierTaken(const DirectiveScan& scan, const BranchVerdicts& v, int index) {
  std::vector<Tri> taken(v.own[index].size(), Tri::kFalse);
  for (int p = scan.branches[index].previous; p >= 0; p = scan.branches[p].previous) {
    for (size_t a = 0; a < taken.size(); ++a) taken[a] = TriOr(taken[a], v.own[p][a]);
  }
  return taken;
}

// A branch is a gate when its own condition depends on the arch, or (#elif/#else) an earlier
// branch's does: then which branch is taken depends on the arch.
bool IsGate(const DirectiveScan& scan, const BranchVerdicts& v, int index) {
  for (int b = index; b >= 0; b = scan.branches[b].previous) {
    if (v.arch_dependent[b]) return true;
  }
  return false;
}

gate::Block BlockOf(const DirectiveBranch& b, const std::vector<KernelDecl>& kernels) {
  gate::Block block{b.first_line, b.last_line, b.block, {}, {}, std::nullopt};
  auto k = std::lower_bound(kernels.begin(), kernels.end(), b.block.begin,
                            [](const KernelDecl& d, size_t at) { return d.offset < at; });  // in file order
  for (; k != kernels.end() && k->offset < b.block.end; ++k) block.kernels.push_back(k->name);
  return block;
}

// The macros #defined anywhere inside the branch's block: a gate on one of them elsewhere is a
// consequence of this branch (root causes, docs/audit.md).
std::vector<std::string> DefinedMacros(const DirectiveScan& scan, const DirectiveBranch& b) {
  std::vector<std::string> names;
  for (const MacroDirective& m : scan.macros) {
    if (m.define && m.offset >= b.block.begin && m.offset < b.block.end) names.push_back(m.name);
  }
  return names;
}

// The exclusion class for arches.front(), the audit's target (scan::VerdictArches puts it first).
void AddExclusion(Finding& f, const DirectiveScan& scan, const BranchVerdicts& v, const std::vector<BlockHolds>& holds,
                  int index, const std::vector<arch::Arch>& arches, const std::vector<Token>& tokens,
                  std::string_view contents) {
  f.block->holds = holds[index];
  if (v.effective[index].empty() || v.effective[index][0] != Tri::kFalse) return;
  const bool whole = f.scope.empty() || ChainFillsItsBraces(scan, index, tokens, contents);
  Exclusion e = ClassifyExclusion(scan, v, holds, index, arches, 0, whole);
  gate::TargetBranch takes{e.target.holds, e.target.certain, 0};
  if (e.target.branch >= 0) takes.line = scan.branches[e.target.branch].line;
  f.exclusion = gate::Classification{e.klass, e.reason, takes};
}

// What a branch's finding says without locating anything: place, verdicts, form and chain (what a
// caller's filter reads, GateKinds::wanted).
Finding DraftFinding(const std::string& file, const DirectiveScan& scan, const BranchVerdicts& v, int index,
                     const std::vector<arch::Arch>& arches) {
  const DirectiveBranch& b = scan.branches[index];
  Finding f;
  f.file = file;
  f.line = b.condition_line;
  f.column = b.condition_column;
  f.kind = gate::Kind::kCudaGate;
  f.text = b.kind == DirectiveKind::kElse ? "else" : b.condition;
  f.span =
      b.kind == DirectiveKind::kElse ? ByteSpan{b.condition_span.begin - 4, b.condition_span.end} : b.condition_span;
  f.verdict = Verdicts(arches, v.effective[index]);
  f.form = gate::DirectiveForm{b.kind, b.line, EffectiveConditionText(scan, index)};
  if (b.previous >= 0) f.chain.earlier_taken = Verdicts(arches, EarlierTaken(scan, v, index));
  if (b.parent >= 0) {
    f.chain.enclosing_line = scan.branches[b.parent].condition_line;
    f.chain.enclosing = Verdicts(arches, v.effective[b.parent]);
  }
  return f;
}

// The rest, from the file's kernels, function bodies and what each block holds: scope, block,
// the macros it defines and the exclusion class.
void CompleteFinding(Finding& f, const DirectiveScan& scan, const BranchVerdicts& v,
                     const std::vector<BlockHolds>& holds, int index, const std::vector<arch::Arch>& arches,
                     const std::vector<KernelDecl>& kernels, const std::vector<FunctionBody>& bodies,
                     const std::vector<Token>& tokens, std::string_view contents) {
  const DirectiveBranch& b = scan.branches[index];
  f.scope = EnclosingFunction(bodies, b.directive_span.begin);
  f.block = BlockOf(b, kernels);
  f.block->defines = DefinedMacros(scan, b);
  AddExclusion(f, scan, v, holds, index, arches, tokens, contents);
}

std::vector<MacroDefinition> DefinitionsIn(const DirectiveScan& scan, const BranchVerdicts& v, size_t arches) {
  std::vector<MacroDefinition> out;
  for (const MacroDirective& m : scan.macros) {
    if (!m.define) continue;
    out.push_back({m.name, m.branch >= 0 ? v.effective[m.branch] : std::vector<Tri>(arches, Tri::kTrue)});
  }
  return out;
}

// Whether `wanted` keeps a gate of the file: drafting stops at the first one.
bool AnyWanted(const std::string& file, const DirectiveScan& scan, const BranchVerdicts& v,
               const std::vector<arch::Arch>& arches, const DraftFilter& wanted) {
  for (size_t i = 0; i < scan.branches.size(); ++i) {
    const int index = static_cast<int>(i);
    if (IsGate(scan, v, index) && wanted(DraftFinding(file, scan, v, index, arches))) return true;
  }
  return false;
}

// A file's branches are drafted, and their findings completed, this many at a time: on the idle
// workers too where the file offers its loops (GateKinds::loops). On 16 cores CUTLASS's 2.8-2.9 MB
// mma_sm90_gmma*_ext.hpp (about 1,470 branches each) held the findings round's end on one worker
// each (docs/audit.md, the eleventh session's figures).
constexpr size_t kDraftsPerPart = 64;

// Appends the drafts of the gates `wanted` keeps (every gate where it is empty) to `findings`, in
// file order; returns their branches' indices, in the same order.
std::vector<int> AddWantedDrafts(const std::string& file, const DirectiveScan& scan, const BranchVerdicts& v,
                                 const std::vector<arch::Arch>& arches, const DraftFilter& wanted, SharedLoops* loops,
                                 std::vector<Finding>& findings) {
  const size_t n = scan.branches.size();
  std::vector<std::vector<std::pair<int, Finding>>> parts((n + kDraftsPerPart - 1) / kDraftsPerPart);
  InParts(loops, n, kDraftsPerPart, [&](size_t begin, size_t end) {
    std::vector<std::pair<int, Finding>>& part = parts[begin / kDraftsPerPart];
    for (size_t i = begin; i < end; ++i) {
      const int index = static_cast<int>(i);
      if (!IsGate(scan, v, index)) continue;
      Finding f = DraftFinding(file, scan, v, index, arches);
      if (!wanted || wanted(f)) part.emplace_back(index, std::move(f));
    }
  });
  std::vector<int> indices;
  for (auto& part : parts) {
    for (auto& [index, f] : part) indices.push_back(index), findings.push_back(std::move(f));
  }
  return indices;
}

void AddDirectiveGates(const std::string& file, std::string_view contents, const std::vector<Token>& tokens,
                       const LineIndex& lines, const std::vector<arch::Arch>& arches, const MacroEnv& env,
                       const GateKinds& kinds, CudaGates& out) {
  const DraftFilter& wanted = kinds.wanted;
  std::shared_ptr<const DirectiveScan> read = kinds.read;
  if (!read) read = std::make_shared<const DirectiveScan>(ReadDirectives(tokens, contents, file, lines));
  const DirectiveScan& scan = *read;
  if (kinds.definitions_only) {
    out.definitions = DefinitionsOf(scan, arches, env, file);
    out.directives = std::move(read);
    return;
  }
  BranchVerdicts v = EvaluateOwnBranches(scan, arches, env, file);
  out.warnings.insert(out.warnings.end(), scan.problems.begin(), scan.problems.end());
  out.warnings.insert(out.warnings.end(), v.malformed.begin(), v.malformed.end());
  out.definitions = DefinitionsIn(scan, v, arches.size());
  out.directives = std::move(read);
  // Kernels, function bodies and what each block holds describe findings only: found once the
  // caller wants a gate, so a file whose branches gate nothing (a later round's rescan of a file
  // that merely tests a package macro), or nothing the audit keeps, skips three passes over its
  // tokens. The functions are found in both readings (AllFunctions): the hazard checks, which run
  // on the files with such a gate, take them from here.
  if (kinds.only_whether_wanted) {
    out.wanted_any = wanted && AnyWanted(file, scan, v, arches, wanted);
  } else {
    const size_t first = out.findings.size();
    const std::vector<int> drafted = AddWantedDrafts(file, scan, v, arches, wanted, kinds.loops, out.findings);
    if (!drafted.empty()) {
      out.functions =
          kinds.functions ? kinds.functions : std::make_shared<const AllFunctions>(FindAllFunctions(tokens, contents));
      const std::vector<BlockHolds> holds = AllBlockHolds(scan, tokens, contents, kinds.loops);
      InParts(kinds.loops, drafted.size(), kDraftsPerPart, [&](size_t begin, size_t end) {
        for (size_t d = begin; d < end; ++d) {
          CompleteFinding(out.findings[first + d], scan, v, holds, drafted[d], arches, out.functions->kernels,
                          out.functions->scoped, tokens, contents);
        }
      });
    }
  }
  out.verdicts = std::make_shared<const BranchVerdicts>(std::move(v));
}

}  // namespace

MacroEnv WithoutOwnMacros(const MacroEnv& env, const DirectiveScan& scan) {
  MacroEnv out = env;
  if (out.per_arch.empty()) return out;
  for (const MacroDirective& m : scan.macros) out.per_arch.erase(m.name);
  return out;
}

std::vector<MacroDefinition> DefinitionsOf(const DirectiveScan& scan, const std::vector<arch::Arch>& arches,
                                           const MacroEnv& env, const std::string& file) {
  return DefinitionsIn(scan, EvaluateMacroBranches(scan, arches, env, file), arches.size());
}

Result<CudaGates> ScanCudaGates(const std::string& file, std::string_view contents,
                                const std::vector<arch::Arch>& arches, const MacroEnv& env, const GateKinds& kinds) {
  return ScanCudaGates(file, contents, Tokenize(contents), arches, env, kinds);
}

Result<CudaGates> ScanCudaGates(const std::string& file, std::string_view contents, const std::vector<Token>& tokens,
                                const std::vector<arch::Arch>& arches, const MacroEnv& env, const GateKinds& kinds) {
  CudaGates out;
  if (kinds.directives || kinds.nv_target) out.lines.emplace(contents);
  if (kinds.directives) AddDirectiveGates(file, contents, tokens, *out.lines, arches, env, kinds, out);
  if (kinds.nv_target) {
    std::vector<Finding> nv = FindNvTargetGates(file, contents, tokens, arches, env, *out.lines);
    out.findings.insert(out.findings.end(), nv.begin(), nv.end());
  }
  if (kinds.runtime) {
    std::vector<Finding> runtime = FindRuntimeGates(file, contents, arches, tokens);
    std::move(runtime.begin(), runtime.end(), std::back_inserter(out.findings));
  }
  SortFindings(out.findings);
  return out;
}

}  // namespace archpatch::cuda
