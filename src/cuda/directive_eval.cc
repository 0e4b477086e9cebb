// Per-arch verdicts of directive branches (directives.h): own condition, effective condition
// through #elif/#else negation and nesting, and macros the file itself #defines or #undefs.
#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>

#include <fmt/format.h>

#include "cuda/condition.h"
#include "cuda/directives.h"

namespace archpatch::cuda {
namespace {

// The expression a branch tests: #ifdef X is defined(X), #ifndef X is !defined(X).
std::string ExpressionOf(const DirectiveBranch& b) {
  switch (b.kind) {
    case DirectiveKind::kIfdef:
    case DirectiveKind::kElifdef: return fmt::format("defined({})", b.condition);
    case DirectiveKind::kIfndef:
    case DirectiveKind::kElifndef: return fmt::format("!defined({})", b.condition);
    case DirectiveKind::kElse: return "1";
    default: return b.condition;
  }
}

// `#ifndef X` + `#define X` as the first thing inside, alone at file level: an include guard,
// taken on the first (and only interesting) inclusion.
bool IsIncludeGuard(const DirectiveScan& scan, int index) {
  const DirectiveBranch& b = scan.branches[index];
  if (b.kind != DirectiveKind::kIfndef || b.parent != -1) return false;
  if (index + 1 < static_cast<int>(scan.branches.size()) && scan.branches[index + 1].previous == index) {
    return false;  // has an #else or #elif
  }
  // The first #define/#undef inside the block (macros are in file order).
  auto first = std::lower_bound(scan.macros.begin(), scan.macros.end(), b.block.begin,
                                [](const MacroDirective& m, size_t at) { return m.offset < at; });
  if (first == scan.macros.end() || first->offset >= b.block.end) return false;
  bool branch_between = index + 1 < static_cast<int>(scan.branches.size()) &&
                        scan.branches[index + 1].directive_span.begin < first->offset;
  return first->define && first->name == b.condition && !branch_between;
}

// The branches' conditions, each distinct expression parsed once: CUTLASS's mma_sm90_gmma*.hpp
// test `defined(CUTE_ARCH_MMA_SM90A_ENABLED)` and a few others thousands of times.
struct ParsedBranches {
  std::vector<std::optional<Condition>> expressions;  // distinct; nullopt: malformed
  // Per expression: it reads no name whose value may differ between two arches' passes (an arch
  // macro, a package's per-arch macro, a macro the file #defines or #undefs itself), so its value
  // is the same on every arch and is evaluated once (most of CUTLASS's and FlashInfer's #if
  // conditions test the compiler, the platform or a feature switch).
  std::vector<bool> same_on_every_arch;
  std::set<std::string_view> defined_here, named_here;  // the file's #define names; #define and #undef
  std::vector<int> expression_of;                       // per branch; -1: not evaluated
  std::vector<bool> guards;
  bool Evaluated(size_t index) const { return expression_of[index] >= 0; }
  const std::optional<Condition>* ConditionOf(size_t index) const {
    return expression_of[index] < 0 ? nullptr : &expressions[expression_of[index]];
  }
};

// `evaluated`: the branches to evaluate (empty: all of them).
ParsedBranches ParseAll(const DirectiveScan& scan, const std::string& file, BranchVerdicts& out,
                        const std::vector<bool>& evaluated) {
  ParsedBranches parsed;
  std::unordered_map<std::string, int> seen;
  std::vector<Error> errors;  // per distinct malformed expression: its message, placed per branch
  for (size_t i = 0; i < scan.branches.size(); ++i) {
    const DirectiveBranch& b = scan.branches[i];
    if (!evaluated.empty() && !evaluated[i]) {
      parsed.guards.push_back(false);
      parsed.expression_of.push_back(-1);
      continue;
    }
    parsed.guards.push_back(IsIncludeGuard(scan, static_cast<int>(i)));
    auto [it, fresh] = seen.emplace(ExpressionOf(b), static_cast<int>(parsed.expressions.size()));
    parsed.expression_of.push_back(it->second);
    if (fresh) {
      Result<Condition> c = ParseCondition(it->first);
      parsed.expressions.push_back(c ? std::optional<Condition>(std::move(*c)) : std::nullopt);
      errors.push_back(c ? Error{} : c.error());
    }
    if (parsed.expressions[it->second]) continue;
    const Error& error = errors[it->second];
    const int shift = b.kind == DirectiveKind::kIfndef || b.kind == DirectiveKind::kElifndef ? 9
                      : b.kind == DirectiveKind::kIfdef || b.kind == DirectiveKind::kElifdef ? 8
                                                                                             : 0;
    int column = b.condition_column + std::max(0, error.where.column - 1 - shift);
    out.malformed.push_back(Error{fmt::format("malformed condition '{}': {}", b.condition, error.message),
                                  Location{file, b.condition_line, column}});
    out.malformed_branches.push_back(static_cast<int>(i));
  }
  return parsed;
}

// Transparent, so a lookup by string_view makes no key string.
struct NameHash {
  using is_transparent = void;
  size_t operator()(std::string_view name) const { return std::hash<std::string_view>{}(name); }
};

// Walks branches and #define/#undef in file order for one arch.
class ArchPass {
 public:
  // `same`: the values of the expressions that read the same on every arch
  // (ParsedBranches::same_on_every_arch), filled by the first pass that evaluates each and read by
  // the others.
  ArchPass(const DirectiveScan& scan, const ParsedBranches& parsed, MacroLookup base, size_t arch, BranchVerdicts& out,
           std::vector<std::optional<Tri>>& same)
      : scan_(scan), parsed_(parsed), base_(std::move(base)), arch_(arch), out_(out), same_(same) {}

  void Run() {
    size_t m = 0;
    for (size_t b = 0; b < scan_.branches.size(); ++b) {
      for (; m < scan_.macros.size() && scan_.macros[m].offset < scan_.branches[b].directive_span.begin; ++m) {
        Apply(scan_.macros[m]);
      }
      if (parsed_.Evaluated(b)) Evaluate(static_cast<int>(b));
    }
  }

 private:
  MacroValue Lookup(std::string_view name) {
    if (!overrides_.empty()) {
      auto it = overrides_.find(name);
      if (it != overrides_.end()) return it->second;
    }
    return Base(name);
  }

  // The value before the file's #define/#undef: it depends on the name alone, and a file's
  // conditions test the same few macros again and again, so each is looked up through the
  // environment's layers (-D/-U, package macros, the pass) once per arch.
  const MacroValue& Base(std::string_view name) {
    if (auto it = base_values_.find(name); it != base_values_.end()) return it->second;
    MacroValue base = base_(name);
    // A macro this file #defines is the file's own: undefined until its #define (unless -D/-U
    // said otherwise), so CUTLASS-style feature macros come out defined exactly where set.
    if (base.state == MacroValue::State::kUnknown && parsed_.defined_here.count(name)) base = MacroValue::Undefined();
    return base_values_.emplace(std::string(name), std::move(base)).first->second;
  }

  void Apply(const MacroDirective& m) {
    Tri taken = m.branch < 0 ? Tri::kTrue : out_.effective[m.branch][arch_];
    if (taken == Tri::kFalse) return;
    ++generation_;  // the file's macros change: every expression's value may too
    MacroValue now = m.define ? MacroValue::Defined(m.replacement) : MacroValue::Undefined();
    MacroValue before = Lookup(m.name);
    bool same = before.state == now.state && before.replacement == now.replacement;
    overrides_[m.name] = taken == Tri::kTrue || same ? now : MacroValue::Unknown();
  }

  void Evaluate(int index) {
    const DirectiveBranch& b = scan_.branches[index];
    Tri own = Tri::kUnknown;
    if (parsed_.guards[index]) {
      own = Tri::kTrue;
    } else if (parsed_.expressions[parsed_.expression_of[index]]) {
      own = ValueOf(parsed_.expression_of[index]);
    }
    // None of the chain's earlier branches taken: carried along the chain, not re-walked.
    const Tri none_earlier =
        b.previous < 0 ? Tri::kTrue : TriAnd(none_earlier_[b.previous], TriNot(out_.own[b.previous][arch_]));
    none_earlier_[index] = none_earlier;
    Tri effective = TriAnd(own, none_earlier);
    if (b.parent >= 0) effective = TriAnd(effective, out_.effective[b.parent][arch_]);
    out_.own[index][arch_] = own;
    out_.effective[index][arch_] = effective;
  }

  // An expression's value under the macros as they stand: evaluated again only after a #define
  // or #undef took effect.
  Tri ValueOf(int expression) {
    if (parsed_.same_on_every_arch[expression]) {
      std::optional<Tri>& same = same_[expression];
      if (!same)
        same = cuda::Evaluate(*parsed_.expressions[expression], [this](std::string_view n) { return Lookup(n); });
      return *same;
    }
    Known& known = known_[expression];
    if (known.generation != generation_) {
      known = {generation_,
               cuda::Evaluate(*parsed_.expressions[expression], [this](std::string_view n) { return Lookup(n); })};
    }
    return known.value;
  }

  struct Known {
    uint32_t generation = 0;  // 0: never evaluated
    Tri value = Tri::kUnknown;
  };

  const DirectiveScan& scan_;
  const ParsedBranches& parsed_;
  MacroLookup base_;
  size_t arch_;
  BranchVerdicts& out_;
  std::vector<std::optional<Tri>>& same_;
  uint32_t generation_ = 1;
  std::vector<Known> known_ = std::vector<Known>(parsed_.expressions.size());
  // Transparent: Lookup runs for every identifier of every condition per arch, and a key string
  // made for each was a malloc per lookup on CUTLASS's long macro names.
  std::map<std::string, MacroValue, std::less<>> overrides_;
  std::unordered_map<std::string, MacroValue, NameHash, std::equal_to<>> base_values_;
  std::vector<Tri> none_earlier_ = std::vector<Tri>(scan_.branches.size(), Tri::kTrue);
};

bool Uniform(const std::vector<Tri>& values) {
  for (Tri v : values) {
    if (v != values.front()) return false;
  }
  return true;
}

std::string Parenthesised(const DirectiveBranch& b) { return "(" + ExpressionOf(b) + ")"; }

}  // namespace

namespace {

// The branches whose verdicts decide where the file's #define and #undef directives take effect:
// each that holds one, the earlier branches of its chain and the branches around it (an effective
// verdict reads theirs), and theirs in turn. CUTLASS's mma_sm90_gmma*.hpp hold thousands of
// branches, a few dozen of them around a #define.
std::vector<bool> MacroBranches(const DirectiveScan& scan) {
  std::vector<bool> needed(scan.branches.size(), false);
  std::vector<int> todo;
  for (const MacroDirective& m : scan.macros) todo.push_back(m.branch);
  while (!todo.empty()) {
    const int b = todo.back();
    todo.pop_back();
    if (b < 0 || needed[b]) continue;
    needed[b] = true;
    todo.push_back(scan.branches[b].previous);
    todo.push_back(scan.branches[b].parent);
  }
  return needed;
}

// ParsedBranches::same_on_every_arch, for arches of the table (an arch outside it has a pass of
// its own that VariesByArch does not know).
void MarkSameOnEveryArch(const MacroEnv& env, const std::vector<arch::Arch>& arches, ParsedBranches& parsed) {
  parsed.same_on_every_arch.assign(parsed.expressions.size(), false);
  const std::vector<arch::Arch>& table = arch::AllArches();
  for (const arch::Arch& a : arches) {
    if (std::find(table.begin(), table.end(), a) == table.end()) return;
  }
  for (size_t e = 0; e < parsed.expressions.size(); ++e) {
    if (!parsed.expressions[e]) continue;
    bool same = true;
    for (const ConditionNode& node : parsed.expressions[e]->nodes()) {
      const bool named = node.kind == ConditionNode::Kind::kIdentifier || node.kind == ConditionNode::Kind::kDefined ||
                         node.kind == ConditionNode::Kind::kCall;
      if (named && (VariesByArch(node.name, env) || parsed.named_here.count(node.name))) {
        same = false;
        break;
      }
    }
    parsed.same_on_every_arch[e] = same;
  }
}

// `hidden`: the package macros to leave out of `env` (nullptr: none); `evaluated`: the branches to
// evaluate, empty for all (the others' verdicts stay unknown, and none of them is malformed).
BranchVerdicts EvaluateWith(const DirectiveScan& scan, const std::vector<arch::Arch>& arches, const MacroEnv& env,
                            const MacroNames* hidden, const std::string& file,
                            const std::vector<bool>& evaluated = {}) {
  BranchVerdicts out;
  const size_t n = scan.branches.size();
  out.own.assign(n, std::vector<Tri>(arches.size(), Tri::kUnknown));
  out.effective = out.own;
  ParsedBranches parsed = ParseAll(scan, file, out, evaluated);
  for (const MacroDirective& m : scan.macros) {
    parsed.named_here.insert(m.name);
    if (m.define) parsed.defined_here.insert(m.name);
  }
  MarkSameOnEveryArch(env, arches, parsed);
  std::vector<std::optional<Tri>> same(parsed.expressions.size());
  for (size_t a = 0; a < arches.size(); ++a) {
    MacroLookup base = hidden ? ArchLookup(arches[a], env, *hidden) : ArchLookup(arches[a], env);
    ArchPass(scan, parsed, std::move(base), a, out, same).Run();
  }
  out.arch_dependent.assign(n, false);
  for (size_t b = 0; b < n; ++b) {
    const std::optional<Condition>* condition = parsed.ConditionOf(b);
    bool mentions = condition && *condition && MentionsArchMacro(**condition);
    out.arch_dependent[b] = !parsed.guards[b] && (mentions || (!arches.empty() && !Uniform(out.own[b])));
  }
  return out;
}

}  // namespace

BranchVerdicts EvaluateBranches(const DirectiveScan& scan, const std::vector<arch::Arch>& arches, const MacroEnv& env,
                                const std::string& file) {
  return EvaluateWith(scan, arches, env, nullptr, file);
}

namespace {

// EvaluateWith, the package macros the file #defines itself left out of `env`.
BranchVerdicts EvaluateWithoutOwn(const DirectiveScan& scan, const std::vector<arch::Arch>& arches, const MacroEnv& env,
                                  const std::string& file, const std::vector<bool>& evaluated) {
  if (env.per_arch.empty()) return EvaluateWith(scan, arches, env, nullptr, file, evaluated);
  MacroNames own;
  for (const MacroDirective& m : scan.macros) own.insert(m.name);
  return EvaluateWith(scan, arches, env, &own, file, evaluated);
}

}  // namespace

BranchVerdicts EvaluateOwnBranches(const DirectiveScan& scan, const std::vector<arch::Arch>& arches,
                                   const MacroEnv& env, const std::string& file) {
  return EvaluateWithoutOwn(scan, arches, env, file, {});
}

BranchVerdicts EvaluateMacroBranches(const DirectiveScan& scan, const std::vector<arch::Arch>& arches,
                                     const MacroEnv& env, const std::string& file) {
  return EvaluateWithoutOwn(scan, arches, env, file, MacroBranches(scan));
}

std::string EffectiveConditionText(const DirectiveScan& scan, int index) {
  std::vector<std::string> terms;
  const DirectiveBranch& b = scan.branches[index];
  if (b.kind != DirectiveKind::kElse) terms.push_back(Parenthesised(b));
  for (int p = b.previous; p >= 0; p = scan.branches[p].previous) {
    terms.push_back("!" + Parenthesised(scan.branches[p]));
  }
  for (int up = b.parent; up >= 0; up = scan.branches[up].parent) {
    const DirectiveBranch& u = scan.branches[up];
    if (u.kind != DirectiveKind::kElse) terms.push_back(Parenthesised(u));
    for (int p = u.previous; p >= 0; p = scan.branches[p].previous) {
      terms.push_back("!" + Parenthesised(scan.branches[p]));
    }
  }
  std::string text;
  for (const std::string& t : terms) text += (text.empty() ? "" : " && ") + t;
  return text.empty() ? "1" : text;
}

}  // namespace archpatch::cuda
