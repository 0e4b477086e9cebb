#include "cuda/runtime_tokens.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>

#include "cuda/check_macros.h"
#include "cuda/functions.h"
#include "cuda/runtime_eval.h"
#include "cuda/runtime_gates.h"

namespace archpatch::cuda {
namespace {

using namespace runtime_detail;  // the evaluator (runtime_eval.h)

class TokenScan {
 public:
  // `macros`: the file's check-building macros, whose calls are read through their expansion;
  // null for the expansion itself (one level deep).
  TokenScan(const std::string& file, std::string_view contents, const std::vector<arch::Arch>& arches, const View& view,
            const ConstantLookup& constants, LazyBodies& bodies, const FileCheckMacros* macros)
      : file_(file),
        contents_(contents),
        arches_(arches),
        v_(view),
        bodies_(bodies),
        constants_(constants),
        macros_(macros) {}

  std::vector<Finding> Run() {
    if (!v_.expanded_at) CollectBound();  // an expansion's bindings would point into its own text
    for (size_t i = 0; i < v_.t.size(); ++i) {
      if (v_.Is(i, "if") && !v_.Is(i - 1, "else"))
        Chain(i);
      else if (macros_ && v_.IsIdent(i) && v_.Is(i + 1, "(") && macros_->Has(v_.Text(i)) && ExpandCall(i))
        continue;
      else if (v_.IsIdent(i) && v_.Is(i + 1, "(") && IsCheckName(v_.Text(i)))
        CheckMacro(i, i);
      else if (const size_t check = ConstructedCheck(i); check != kNone)
        CheckMacro(i, check);
    }
    return std::move(findings_);
  }

 private:
  struct GateSpec {
    size_t a = 0, b = 0;                    // the condition's tokens
    size_t pa = 0, pb = 0, qa = 0, qb = 0;  // CHECK_xx: the two compared arguments
    std::string op;                         // CHECK_xx: the comparison
    bool refuse_when_true = false;
    std::string form, check;
  };

  void CollectBound() {
    for (size_t i = 0; i + 3 < v_.t.size(); ++i) {
      if (!(v_.Is(i, "bool") || v_.Is(i, "auto")) || !v_.IsIdent(i + 1) || !v_.Is(i + 2, "=")) continue;
      size_t end = i + 3;
      while (end < v_.t.size() && !v_.Is(end, ";"))
        end = (v_.Is(end, "(") && v_.match[end] != std::string_view::npos) ? v_.match[end] + 1 : end + 1;
      size_t stmt = (i > 0 && (v_.Is(i - 1, "const") || v_.Is(i - 1, "constexpr"))) ? i - 1 : i;
      bound_[std::string(v_.Text(i + 1))] = {i + 3, end, stmt};
    }
  }

  // The statement starting at `s`: [s, end) with end after its ';' or closing '}'.
  size_t StatementEnd(size_t s) const {
    if (v_.Is(s, "{")) return v_.match[s] == std::string_view::npos ? v_.t.size() : v_.match[s] + 1;
    size_t e = s;
    while (e < v_.t.size() && !v_.Is(e, ";") && !v_.Is(e, "}")) {
      e = (v_.Is(e, "(") || v_.Is(e, "[") || v_.Is(e, "{")) && v_.match[e] != std::string_view::npos ? v_.match[e] + 1
                                                                                                     : e + 1;
    }
    return v_.Is(e, ";") ? e + 1 : e;
  }

  // A statement that fails whatever comes before it: throw, an error macro, CHECK(false).
  bool Raises(size_t s, size_t e) const {
    if (v_.Is(s, "throw")) return true;
    return !v_.Is(s, "return") && !v_.Is(s, "continue") && !v_.Is(s, "{") && Refuses(s, e);
  }

  bool IsLogging(size_t s) const {
    for (size_t k = s; k < v_.t.size() && (v_.IsIdent(k) || v_.Is(k, "::") || v_.Is(k, ".") || v_.Is(k, "<<")); ++k) {
      const std::string upper = UpperCase(v_.Text(k));
      if (upper.find("LOG") != std::string::npos || upper.find("WARN") != std::string::npos ||
          upper.find("PRINT") != std::string::npos || upper == "CERR" || upper == "COUT") {
        return true;
      }
    }
    return false;
  }

  bool Refuses(size_t s, size_t e) const {
    if (s >= e) return false;
    if (v_.Is(s, "{")) {  // a block: its last statement
      size_t last = e - 1, start = s + 1, k = s + 1;
      while (k < last) {
        size_t next = StatementEnd(k);
        if (next <= k || next > last) break;
        start = k, k = next;
      }
      if (start >= last) return false;
      if (Raises(start, StatementEnd(start))) return true;
      // `return;` / `continue;` after work is the end of a path, not a refusal: only after
      // nothing but logging does it refuse.
      for (size_t k2 = s + 1; k2 < start; k2 = StatementEnd(k2)) {
        if (!IsLogging(k2)) return false;
      }
      return Refuses(start, StatementEnd(start));
    }
    if (v_.Is(s, "throw") || v_.Is(s, "continue")) return true;
    if (v_.Is(s, "return")) {
      if (v_.Is(s + 1, ";")) return true;
      if (v_.Is(s + 1, "false") || v_.Is(s + 1, "nullptr") || v_.Is(s + 1, "NULL")) return v_.Is(s + 2, ";");
      const std::string upper = UpperCase(v_.Text(s + 1));
      return upper.find("ERROR") != std::string::npos || upper.find("UNSUPPORTED") != std::string::npos ||
             upper.find("NOT_SUPPORTED") != std::string::npos;
    }
    size_t k = s;
    std::string_view last;
    while (k < e && (v_.IsIdent(k) || v_.Is(k, "::"))) last = v_.IsIdent(k) ? v_.Text(k) : last, ++k;
    if (last.empty() || !v_.Is(k, "(")) return false;
    if (IsErrorCall(last)) return true;
    return IsCheckName(last) && (v_.Is(k + 1, "false") || v_.Is(k + 1, "0")) &&
           (v_.Is(k + 2, ",") || v_.Is(k + 2, ")"));
  }

  // One arm of an if/else-if chain: its condition [a, b), its statement [s, e), the condition's
  // truth per arch (empty when it compares no capability), whether the statement refuses.
  struct Arm {
    size_t a, b, s, e;
    std::vector<Tri> truth = {};
    bool refuses = false;
  };

  std::vector<Tri> Truth(size_t a, size_t b) {
    std::vector<Tri> truth;
    bool compared = false;
    std::vector<std::pair<std::string, NamedConstant>> used;
    std::vector<std::string> bound_used;
    if (arches_.empty()) return truth;
    {  // as in Record: most conditions read no capability
      Evaluator probe(v_, arches_.front(), bound_, nullptr, used, bound_used);
      probe.Eval(a, b);
      if (!probe.saw_capability) return truth;
    }
    for (const arch::Arch& arch : arches_) {
      Evaluator e(v_, arch, bound_, &constants_, used, bound_used);
      Val x = e.Eval(a, b);
      compared |= e.compared;
      truth.push_back(x.kind == Val::Kind::kTri ? x.t : Tri::kUnknown);
    }
    return compared ? truth : std::vector<Tri>{};
  }

  // Per arch, whether an arm of `chain` other than `self` takes it (true there, not refusing):
  // `else if (sm_ >= 80 && sm_ < 90)` keeps sm_120 out only if no later `else if (sm_ >= 90)` takes it.
  std::optional<gate::Verdicts> OtherArmTaken(const std::vector<Arm>& chain, size_t self) const {
    gate::Verdicts taken;
    bool any = false;
    for (size_t k = 0; k < arches_.size(); ++k) {
      bool other = false;
      for (size_t j = 0; j < chain.size(); ++j) {
        other |= j != self && !chain[j].refuses && k < chain[j].truth.size() && chain[j].truth[k] == Tri::kTrue;
      }
      taken.push_back({arches_[k].name(), other ? Tri::kTrue : Tri::kFalse});
      any |= other;
    }
    if (!any) return std::nullopt;
    return taken;
  }

  // if (c1) s1 else if (c2) s2 ... [else sN]
  void Chain(size_t i) {
    std::vector<Arm> arms;
    std::optional<std::pair<size_t, size_t>> otherwise;
    size_t k = i;
    while (v_.Is(k, "if")) {
      size_t open = k + 1;
      if (v_.Is(open, "constexpr")) ++open;
      if (!v_.Is(open, "(") || v_.match[open] == std::string_view::npos) return;
      const size_t close = v_.match[open];
      const size_t s = close + 1, e = StatementEnd(s);
      arms.push_back({open + 1, close, s, e});
      if (!v_.Is(e, "else")) break;
      if (v_.Is(e + 1, "if")) {
        k = e + 1;
        continue;
      }
      otherwise = {e + 1, StatementEnd(e + 1)};
      break;
    }
    bool compares = false;
    for (Arm& arm : arms) {
      arm.truth = Truth(arm.a, arm.b);
      compares |= !arm.truth.empty();
    }
    // An arm whose condition compares no capability records nothing (Record's probe is Truth's)
    // and takes part in no other arm's verdict: most chains of a file need no statement read.
    if (!compares) return;
    const bool else_refuses = otherwise && Refuses(otherwise->first, otherwise->second);
    for (Arm& arm : arms) arm.refuses = Refuses(arm.s, arm.e);
    for (size_t k = 0; k < arms.size(); ++k) {
      const Arm& arm = arms[k];
      if (arm.truth.empty()) continue;
      const size_t before = findings_.size();
      if (arm.refuses)
        Record({arm.a, arm.b, 0, 0, 0, 0, "", true, "if-refuse", ""});
      else if (else_refuses)
        Record({arm.a, arm.b, 0, 0, 0, 0, "", false, "dispatch", ""});
      if (findings_.size() > before) {
        if (std::optional<gate::Verdicts> taken = OtherArmTaken(arms, k)) {
          gate::Chain& chain = findings_.back().chain;  // another arm of the chain is taken
          chain.earlier_taken = std::move(taken);
          chain.enclosing_before_earlier = chain.enclosing.has_value();  // as Record found it
        }
      }
    }
    for (Arm& arm : arms) {
      if (!arm.truth.empty()) arms_.push_back(std::move(arm));
    }
  }

  // Per arch, whether the code at token `t` is reached through the capability tests of the if
  // arms around it: `TLLM_CHECK(sm_ == 89)` inside `else if (sm_ >= 80 && sm_ < 90) {` is never
  // reached on sm_120. Null when no such arm encloses it.
  std::optional<gate::Verdicts> EnclosingVerdict(size_t t) const {
    std::vector<Tri> reached(arches_.size(), Tri::kTrue);
    bool enclosed = false;
    for (const Arm& arm : arms_) {
      if (!(arm.s <= t && t < arm.e)) continue;
      enclosed = true;
      for (size_t k = 0; k < reached.size(); ++k) {
        if (arm.truth[k] == Tri::kFalse) reached[k] = Tri::kFalse;
      }
    }
    if (!enclosed) return std::nullopt;
    gate::Verdicts out;
    for (size_t k = 0; k < arches_.size(); ++k) out.push_back({arches_[k].name(), reached[k]});
    return out;
  }

  static constexpr size_t kNone = std::string_view::npos;

  // `Requirement{major >= 9};`, `ArchRequirement req{major >= 9};`: an object of a checking type
  // built from the condition, in an expression (after `;`, `{`, `}`, `(`, `,`, `=` or `return`):
  // the index of the type's name, or kNone. A class's own body (`struct Require {`) is none.
  size_t ConstructedCheck(size_t i) const {
    if (!v_.IsIdent(i) || !v_.Is(i + 1, "{")) return kNone;
    const size_t type = i > 0 && v_.IsIdent(i - 1) ? i - 1 : i;
    if (!IsCheckName(v_.Text(type))) return kNone;
    if (type == 0) return type;
    static constexpr std::string_view kBefore[] = {";", "{", "}", "(", ",", "=", "return"};
    const std::string_view before = v_.Text(type - 1);
    return std::find(std::begin(kBefore), std::end(kBefore), before) != std::end(kBefore) ? type : kNone;
  }

  // The arguments of the call or braced list opened at `open`: [begin, end) token ranges.
  std::vector<std::pair<size_t, size_t>> Arguments(size_t open, size_t close) const {
    std::vector<std::pair<size_t, size_t>> args;
    size_t start = open + 1;
    for (size_t k = open + 1; k <= close; ++k) {
      if (k == close || v_.Is(k, ",")) {
        args.emplace_back(start, k);
        start = k + 1;
      } else if ((v_.Is(k, "(") || v_.Is(k, "[") || v_.Is(k, "{")) && v_.match[k] != std::string_view::npos) {
        k = v_.match[k];
      }
    }
    return args;
  }

  // A check macro's call (or a checking object's construction) at `i`, named by the token `name`.
  void CheckMacro(size_t i, size_t name_at) {
    const size_t open = i + 1, close = v_.match[open];
    if (close == std::string_view::npos || v_.Is(close + 1, "{") || v_.Is(i - 1, "::")) return;
    const std::vector<std::pair<size_t, size_t>> args = Arguments(open, close);
    if (args.empty() || args[0].first >= args[0].second) return;
    const std::string name(v_.Text(name_at));
    static constexpr std::pair<std::string_view, std::string_view> kSuffixes[] = {
        {"_EQ", "=="}, {"_NE", "!="}, {"_LT", "<"}, {"_LE", "<="}, {"_GT", ">"}, {"_GE", ">="}};
    for (const auto& [suffix, op] : kSuffixes) {
      if (name.size() > suffix.size() && name.ends_with(suffix) && args.size() >= 2) {
        GateSpec g{i,     close + 1,     args[0].first, args[0].second, args[1].first, args[1].second, std::string(op),
                   false, "check-macro", name};
        return Record(g);
      }
    }
    Record({args[0].first, args[0].second, 0, 0, 0, 0, "", false, "check-macro", name});
  }

  // A call of one of the file's check-building macros: the checks of its expansion, reported at
  // the call, as a compiler reads them. False when it was not expanded: past the file's budget
  // (expansions lexed add up to at most twice the file, plus one: linear in the file, whatever
  // its calls), an unbalanced call, or arguments that do not fit.
  bool ExpandCall(size_t i) {
    const size_t open = i + 1, close = v_.match[open];
    if (close == std::string_view::npos) return false;
    std::vector<std::string_view> args;
    for (const auto& [a, b] : Arguments(open, close)) {
      args.push_back(a < b ? contents_.substr(v_.t[a]->begin, v_.t[b - 1]->end - v_.t[a]->begin) : "");
    }
    std::optional<std::string> expansion = macros_->Expand(v_.Text(i), args);
    if (!expansion || expanded_bytes_ + expansion->size() > 2 * contents_.size() + kMaxExpansionBytes) return false;
    expanded_bytes_ += expansion->size();
    if (v_.Is(close + 1, ";")) *expansion += ';';  // `MACRO(x);`: the statement the body starts ends there
    const std::vector<Token> tokens = Tokenize(*expansion);
    View view = MakeView(*expansion, tokens);
    const size_t b = v_.t[i]->begin, e = v_.t[close]->end;
    view.expanded_at = b;
    for (Finding& f : TokenScan(file_, *expansion, arches_, view, constants_, bodies_, nullptr).Run()) {
      f.line = Lines().Line(b), f.column = Lines().Column(b);
      f.text = std::string(contents_.substr(b, e - b));
      f.span = {b, e};
      if (!f.chain.enclosing) f.chain.enclosing = EnclosingVerdict(i);
      findings_.push_back(std::move(f));
    }
    return true;
  }

  static Val Evaluate(Evaluator& e, const GateSpec& g) {
    return g.op.empty() ? e.Eval(g.a, g.b) : e.Compare(g.op, e.Eval(g.pa, g.pb), e.Eval(g.qa, g.qb));
  }

  void Record(const GateSpec& g) {
    std::vector<Tri> verdict;
    bool compared = false;
    std::vector<std::pair<std::string, NamedConstant>> used;
    std::vector<std::string> bound_used;
    if (arches_.empty()) return;
    {  // Most conditions read no capability: skip them before any constant is looked up.
      Evaluator probe(v_, arches_.front(), bound_, nullptr, used, bound_used);
      Evaluate(probe, g);
      if (!probe.saw_capability) return;
    }
    for (const arch::Arch& a : arches_) {
      Evaluator e(v_, a, bound_, &constants_, used, bound_used);
      Val x = Evaluate(e, g);
      compared |= e.compared;
      Tri t = x.kind == Val::Kind::kTri ? x.t : Tri::kUnknown;
      verdict.push_back(g.refuse_when_true ? TriNot(t) : t);
    }
    if (!compared || std::all_of(verdict.begin(), verdict.end(), [](Tri t) { return t == Tri::kUnknown; })) return;
    const size_t b = v_.t[g.a]->begin, e = v_.t[g.b - 1]->end;
    Finding f;
    f.file = file_;
    f.line = Lines().Line(b), f.column = Lines().Column(b);
    f.kind = gate::Kind::kCppRuntimeGate;
    f.text = std::string(contents_.substr(b, e - b));
    f.span = {b, e};
    f.scope = EnclosingFunction(bodies_.Get(), v_.Offset(g.a));  // an expansion's: the call's
    for (size_t k = 0; k < arches_.size(); ++k) f.verdict.push_back({arches_[k].name(), verdict[k]});
    f.form = gate::RuntimeForm{g.form, g.check};
    f.direction = g.refuse_when_true ? gate::Direction::kRefuses : gate::Direction::kEnables;
    for (const std::string& name : bound_used) {
      const Bound& bd = bound_.at(name);
      const size_t at = v_.t[bd.stmt]->begin;
      f.via.push_back({file_, static_cast<int>(Lines().Line(at)), static_cast<int>(Lines().Column(at)),
                       std::string(contents_.substr(at, v_.t[bd.end - 1]->end - at)), name, std::nullopt});
    }
    for (const auto& [name, c] : used) f.via.push_back({c.file, c.line, c.column, c.text, name, std::nullopt});
    f.chain.enclosing = EnclosingVerdict(g.a);
    findings_.push_back(std::move(f));
  }

  // The file's line index, made at its first finding: most files scanned here have none.
  const LineIndex& Lines() {
    if (!lines_) lines_.emplace(contents_);
    return *lines_;
  }

  const std::string& file_;
  std::string_view contents_;
  const std::vector<arch::Arch>& arches_;
  const View& v_;
  std::optional<LineIndex> lines_;
  LazyBodies& bodies_;  // the file's, also in an expansion's scan
  const ConstantLookup& constants_;
  const FileCheckMacros* macros_;
  size_t expanded_bytes_ = 0;  // the macro expansions lexed so far
  std::map<std::string, Bound, std::less<>> bound_;
  std::vector<Arm> arms_;  // the capability-testing if arms seen so far (an arm precedes its body)
  std::vector<Finding> findings_;
};

}  // namespace

std::vector<Finding> FindRuntimeGatesInTokens(const std::string& file, std::string_view contents,
                                              const std::vector<arch::Arch>& arches, const std::vector<Token>& tokens,
                                              const View& view, const ConstantLookup& constants, LazyBodies& bodies) {
  const FileCheckMacros macros(view, tokens);
  return TokenScan(file, contents, arches, view, constants, bodies, &macros).Run();
}

}  // namespace archpatch::cuda
