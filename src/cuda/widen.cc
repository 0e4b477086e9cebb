#include "cuda/widen.h"

#include <algorithm>
#include <climits>
#include <optional>

#include <fmt/format.h>

#include "cuda/condition.h"

namespace archpatch::cuda {
namespace {

using Kind = ConditionNode::Kind;

struct Edit {
  size_t begin = 0, end = 0;  // bytes of the original text to replace
  std::string replacement;
};

std::string ApplyEdits(std::string_view text, std::vector<Edit> edits) {
  std::sort(edits.begin(), edits.end(), [](const Edit& a, const Edit& b) { return a.begin < b.begin; });
  std::string out;
  size_t at = 0;
  for (const Edit& e : edits) {
    out.append(text.substr(at, e.begin - at));
    out += e.replacement;
    at = e.end;
  }
  out.append(text.substr(at));
  return out;
}

Error Refuse(WidenStrategy s, std::string_view text, std::string why) {
  return Error{fmt::format("{} cannot widen '{}': {}", WidenStrategyName(s), text, why), {}};
}

// Tri of `text` per target, or nullopt when it does not parse.
std::optional<std::vector<Tri>> Verdicts(std::string_view text, const std::vector<arch::Arch>& arches,
                                         const MacroEnv& env) {
  Result<Condition> c = ParseCondition(text);
  if (!c) return std::nullopt;
  return EvaluatePerArch(*c, arches, env);
}

// True or unknown (a project macro -D could decide) for every target: never false.
bool HoldsForAll(std::string_view text, const std::vector<arch::Arch>& targets, const MacroEnv& env) {
  auto v = Verdicts(text, targets, env);
  return v && std::none_of(v->begin(), v->end(), [](Tri t) { return t == Tri::kFalse; });
}

std::string_view Slice(std::string_view text, const ConditionNode& n) { return text.substr(n.begin, n.end - n.begin); }

// drop-bound: removes the conjuncts of the top-level && chain (through parentheses) that are
// false for a target, with the `&&` and spacing that joined each to its neighbour.
class DropBound {
 public:
  DropBound(const Condition& c, const std::vector<arch::Arch>& targets, const MacroEnv& env)
      : c_(c), targets_(targets), env_(env) {}

  // Whether node `index` goes entirely; otherwise the edits removing its dropped parts.
  bool Collect(int index, std::vector<Edit>& edits) const {
    const ConditionNode& n = c_.node(index);
    if (n.kind == Kind::kParen && IsChain(n.children[0])) return Collect(n.children[0], edits);
    if (n.kind != Kind::kBinary || n.op != "&&") return Excludes(n);
    const ConditionNode& lhs = c_.node(n.children[0]);
    const ConditionNode& rhs = c_.node(n.children[1]);
    const size_t mark = edits.size();
    const bool drop_lhs = Collect(n.children[0], edits);
    const bool drop_rhs = Collect(n.children[1], edits);
    if (drop_lhs && drop_rhs) {
      edits.resize(mark);
      return true;
    }
    if (drop_lhs) edits.push_back({lhs.begin, rhs.begin, ""});
    if (drop_rhs) edits.push_back({lhs.end, rhs.end, ""});
    return false;
  }

 private:
  bool IsChain(int index) const {
    const ConditionNode& n = c_.node(index);
    if (n.kind == Kind::kParen) return IsChain(n.children[0]);
    return n.kind == Kind::kBinary && n.op == "&&";
  }

  bool Excludes(const ConditionNode& conjunct) const {
    auto v = Verdicts(Slice(c_.text(), conjunct), targets_, env_);
    return v && std::any_of(v->begin(), v->end(), [](Tri t) { return t == Tri::kFalse; });
  }

  const Condition& c_;
  const std::vector<arch::Arch>& targets_;
  const MacroEnv& env_;
};

Result<std::string> WidenByDrop(const Condition& c, const std::vector<arch::Arch>& targets, const MacroEnv& env) {
  std::vector<Edit> edits;
  if (DropBound(c, targets, env).Collect(c.root_index(), edits)) {
    return Refuse(WidenStrategy::kDropBound, c.text(), "every conjunct excludes a target; nothing would be left");
  }
  if (edits.empty()) return Refuse(WidenStrategy::kDropBound, c.text(), "no single conjunct excludes the targets");
  return ApplyEdits(c.text(), edits);
}

// raise-bound: a comparison of an arch macro with a literal (`__CUDA_ARCH__ < 1200`, either
// side), whose literal can move to let the targets in.
struct Bound {
  const ConditionNode* literal = nullptr;
  std::string macro;
  std::string op;  // normalised so that the macro is on the left: `1200 > M` reads as `M < 1200`
};

std::optional<Bound> AsBound(const Condition& c, const ConditionNode& n) {
  static const std::pair<std::string_view, std::string_view> kMirror[] = {
      {"<", ">"}, {">", "<"}, {"<=", ">="}, {">=", "<="}};
  if (n.kind != Kind::kBinary) return std::nullopt;
  const ConditionNode& l = c.node(n.children[0]);
  const ConditionNode& r = c.node(n.children[1]);
  for (const auto& [op, mirrored] : kMirror) {
    if (n.op != op) continue;
    if (l.kind == Kind::kIdentifier && IsArchMacro(l.name) && r.kind == Kind::kNumber) return Bound{&r, l.name, n.op};
    if (r.kind == Kind::kIdentifier && IsArchMacro(r.name) && l.kind == Kind::kNumber) {
      return Bound{&l, r.name, std::string(mirrored)};
    }
  }
  return std::nullopt;
}

// The loosest-needed literal for `bound` to hold on every target, if it must move outward.
std::optional<intmax_t> RaisedLiteral(const Bound& b, const std::vector<arch::Arch>& targets, const MacroEnv& env) {
  intmax_t lo = INTMAX_MAX, hi = INTMAX_MIN;
  for (const arch::Arch& t : targets) {
    MacroValue v = ArchLookup(t, env)(b.macro);
    if (v.state != MacroValue::State::kDefined) continue;
    Result<Condition> value = ParseCondition(v.replacement);
    if (!value || value->root().kind != Kind::kNumber) continue;
    lo = std::min(lo, value->root().value), hi = std::max(hi, value->root().value);
  }
  if (lo > hi) return std::nullopt;
  const intmax_t now = b.literal->value;
  // Arch values step by 10 (1200, 1210): `< 1200` for sm_121 becomes `< 1220`, not `< 1211`.
  if (b.op == "<" && now <= hi) return hi + 10;
  if (b.op == "<=" && now < hi) return hi;
  if (b.op == ">" && now >= lo) return lo - 10;
  if (b.op == ">=" && now > lo) return lo;
  return std::nullopt;
}

Edit RaiseEdit(std::string_view text, const Bound& b, intmax_t value) {
  const std::string_view old = Slice(text, *b.literal);
  const size_t suffix = old.find_first_of("uUlL", old.rfind('x') == std::string_view::npos ? 0 : old.rfind('x') + 1);
  const std::string_view kept = suffix == std::string_view::npos ? "" : old.substr(suffix);
  return Edit{b.literal->begin, b.literal->end, fmt::format("{}{}", value, kept)};
}

size_t BlastSize(std::string_view before, std::string_view after, const MacroEnv& env) {
  Result<std::vector<arch::Arch>> flipped = NewlyTrue(before, after, env);
  return flipped ? flipped->size() : SIZE_MAX;
}

Result<std::string> WidenByRaise(const Condition& c, const std::vector<arch::Arch>& targets, const MacroEnv& env) {
  std::vector<Edit> all;
  std::optional<std::string> best;
  size_t best_blast = SIZE_MAX;
  for (const ConditionNode& n : c.nodes()) {
    std::optional<Bound> b = AsBound(c, n);
    if (!b) continue;
    std::optional<intmax_t> raised = RaisedLiteral(*b, targets, env);
    if (!raised) continue;
    all.push_back(RaiseEdit(c.text(), *b, *raised));
    const std::string alone = ApplyEdits(c.text(), {all.back()});
    if (!HoldsForAll(alone, targets, env)) continue;
    const size_t blast = BlastSize(c.text(), alone, env);
    if (blast < best_blast) best = alone, best_blast = blast;  // the smallest blast radius wins
  }
  if (best) return *best;
  if (all.empty()) return Refuse(WidenStrategy::kRaiseBound, c.text(), "no arch-macro bound keeps the targets out");
  std::string together = ApplyEdits(c.text(), all);
  if (!HoldsForAll(together, targets, env)) {
    return Refuse(WidenStrategy::kRaiseBound, c.text(), "moving its bounds does not let every target in");
  }
  return together;
}

// or-target: ` || (__CUDA_ARCH__ == 1200)` for each target value not yet admitted, right after
// the expression (before a trailing comment), wrapping the original only below || precedence.
Result<std::string> WidenByOr(const Condition& c, const std::vector<arch::Arch>& targets, const MacroEnv& env) {
  std::vector<int> values;
  std::vector<Tri> now = EvaluatePerArch(c, targets, env);
  for (size_t i = 0; i < targets.size(); ++i) {
    if (now[i] == Tri::kTrue) continue;
    if (std::find(values.begin(), values.end(), targets[i].cuda_arch()) == values.end()) {
      values.push_back(targets[i].cuda_arch());
    }
  }
  std::string alternatives;
  for (int v : values) alternatives += fmt::format(" || (__CUDA_ARCH__ == {})", v);
  const ConditionNode& root = c.root();
  const bool wrap = root.kind == Kind::kTernary || (root.kind == Kind::kBinary && root.op == ",");
  std::vector<Edit> edits = {{root.end, root.end, alternatives + (wrap ? ")" : "")}};
  if (wrap) edits.push_back({root.begin, root.begin, "("});
  std::string widened = ApplyEdits(c.text(), edits);
  if (!HoldsForAll(widened, targets, env)) {
    return Refuse(WidenStrategy::kOrTarget, c.text(), "the alternatives do not make it hold for every target");
  }
  return widened;
}

}  // namespace

Result<WidenStrategy> ParseWidenStrategy(std::string_view text) {
  for (WidenStrategy s : {WidenStrategy::kDropBound, WidenStrategy::kRaiseBound, WidenStrategy::kOrTarget}) {
    if (text == WidenStrategyName(s)) return s;
  }
  return Error{fmt::format("unknown widen strategy '{}' (expected drop-bound, raise-bound or or-target)", text), {}};
}

std::string_view WidenStrategyName(WidenStrategy strategy) {
  switch (strategy) {
    case WidenStrategy::kDropBound: return "drop-bound";
    case WidenStrategy::kRaiseBound: return "raise-bound";
    case WidenStrategy::kOrTarget: return "or-target";
  }
  return "?";
}

Result<std::string> WidenCondition(std::string_view text, WidenStrategy strategy,
                                   const std::vector<arch::Arch>& targets, const MacroEnv& env) {
  Result<Condition> c = ParseCondition(text);
  if (!c) return c.error();
  if (targets.empty()) return Error{"no target arch to widen the condition for", {}};
  std::vector<Tri> now = EvaluatePerArch(*c, targets, env);
  if (std::all_of(now.begin(), now.end(), [](Tri t) { return t == Tri::kTrue; })) return std::string(text);
  switch (strategy) {
    case WidenStrategy::kDropBound: return WidenByDrop(*c, targets, env);
    case WidenStrategy::kRaiseBound: return WidenByRaise(*c, targets, env);
    case WidenStrategy::kOrTarget: return WidenByOr(*c, targets, env);
  }
  return Error{"unknown widen strategy", {}};
}

Result<std::vector<arch::Arch>> NewlyTrue(std::string_view before, std::string_view after, const MacroEnv& env) {
  auto old_v = Verdicts(before, arch::AllArches(), env);
  auto new_v = Verdicts(after, arch::AllArches(), env);
  if (!old_v || !new_v) return Error{"condition does not parse", {}};
  std::vector<arch::Arch> flipped;
  for (size_t i = 0; i < arch::AllArches().size(); ++i) {
    if ((*old_v)[i] != Tri::kTrue && (*new_v)[i] == Tri::kTrue) flipped.push_back(arch::AllArches()[i]);
  }
  return flipped;
}

}  // namespace archpatch::cuda
