// The half of the recogniser that understands capability expressions: which names hold a major,
// a minor or a (major, minor) capability (from the calls they were unpacked from), and the
// comparisons of such expressions against literals.
#include <algorithm>
#include <cctype>

#include "python/prefilter.h"
#include "python/recognizer.h"
#include "python/word_set.h"

namespace archpatch::python {
namespace {

// IsKeyword is asked about nearly every name of a module: see WordSet.
constexpr std::string_view kKeywords[] = {
    "False",  "None",     "True",   "and", "as",    "assert", "async",  "await",    "break", "case",
    "class",  "continue", "def",    "del", "elif",  "else",   "except", "finally",  "for",   "from",
    "global", "if",       "import", "in",  "is",    "lambda", "match",  "nonlocal", "not",   "or",
    "pass",   "raise",    "return", "try", "while", "with",   "yield"};

constexpr WordSet kKeywordSet(kKeywords);

bool IsKeyword(std::string_view name) { return kKeywordSet.Has(name); }

bool Contains(std::string_view text, std::string_view part) { return text.find(part) != text.npos; }

// torch.cuda.get_device_capability, get_compute_capability, current_platform.get_device_capability
bool IsCapabilityGetter(std::string_view name) {
  if (name.size() < std::string_view("capability").size()) return false;  // most callees: no copy lowered
  const LowerName lowered(name);
  const std::string_view lower = lowered;
  if (!Contains(lower, "capability")) return false;
  return !lower.starts_with("has_") && !lower.starts_with("is_") && !lower.starts_with("set_") &&
         !Contains(lower, "supported");
}

// Names whose text says they hold a capability, a compute capability or an arch name.
bool CapabilityHint(std::string_view lower) {
  return Contains(lower, "capab") || lower == "cc" || lower.ends_with("_cc") || lower == "cap" ||
         lower.ends_with("_cap") || Contains(lower, "arch") || Contains(lower, "sm_version") || lower == "sm";
}
// Whether `owner.major` / `owner.minor` reads a capability's part: `cap.major`, `props.minor`.
bool HintsCapabilityOwner(Provenance kind, std::string_view owner) {
  if (kind == Provenance::kCapability || kind == Provenance::kProperties) return true;
  const LowerName lower(owner);
  return CapabilityHint(lower) || Contains(lower, "prop");
}
bool ArchNameHint(std::string_view lower) {
  return CapabilityHint(lower) || Contains(lower, "backend") || Contains(lower, "target") || Contains(lower, "gpu") ||
         Contains(lower, "device") || lower.rfind("sm", 0) == 0;
}

// Where ParseLiteral ends a literal that starts at `i` with a number, a string (adjacent strings
// concatenate) or a bracket, when it reads one: a reversed comparison needs an operator there, and
// looking first spares parsing (and copying) every literal of a module.
size_t LiteralEnd(const TokenStream& ts, size_t i, size_t end) {
  if (ts.tokens[i].kind == TokenKind::kNumber) return i + 1;
  if (ts.tokens[i].kind != TokenKind::kString) return ts.match[i] == std::string_view::npos ? end : ts.match[i] + 1;
  while (i < end && ts.tokens[i].kind == TokenKind::kString) ++i;
  return i;
}

bool IsInt(const Literal& l) { return l.kind == LiteralKind::kInt; }
bool IsArchString(const Literal& l) { return l.kind == LiteralKind::kString && arch::ReadArchName(l.text).has_value(); }

std::optional<Operand> ChooseOperand(Provenance p, std::string_view last_name, std::string_view primary,
                                     const Literal& lit, Compare op) {
  const bool in = op == Compare::kIn || op == Compare::kNotIn;
  const bool ints = in ? AllItems(lit, IsInt) : IsInt(lit);
  const bool pairs = in ? AllItems(lit, IsPair) : IsPair(lit);
  const bool strings = in ? AllItems(lit, IsArchString) : IsArchString(lit);
  switch (p) {
    case Provenance::kMajor: return ints ? std::optional(Operand::kMajor) : std::nullopt;
    case Provenance::kMinor: return ints ? std::optional(Operand::kMinor) : std::nullopt;
    case Provenance::kComputeCapability: return ints ? std::optional(Operand::kComputeCapability) : std::nullopt;
    case Provenance::kCapability: return pairs ? std::optional(Operand::kCapability) : std::nullopt;
    case Provenance::kProperties: return std::nullopt;
    case Provenance::kNone: break;
  }
  const LowerName lowered_name(last_name), lowered_whole(primary);
  const std::string_view name = lowered_name, whole = lowered_whole;
  if (Contains(whole, "version") && !Contains(whole, "sm_version")) return std::nullopt;  // torch.version.cuda
  auto all_ints = [&](auto pred) {
    if (!in) return pred(lit.number);
    return std::all_of(lit.items.begin(), lit.items.end(),
                       [&](const Literal& i) { return i.kind != LiteralKind::kInt || pred(i.number); });
  };
  if (CapabilityHint(name) && pairs) return Operand::kCapability;
  if (CapabilityHint(name) && ints && all_ints([](long long n) { return n >= 30; })) {
    return Operand::kComputeCapability;
  }
  if (Contains(name, "major") && CapabilityHint(name.substr(0, name.find("major"))) && ints) return Operand::kMajor;
  if (ArchNameHint(name) && strings) return Operand::kArchName;
  return std::nullopt;
}

}  // namespace

std::string LowerText(std::string_view text) {
  // ASCII only, as std::tolower in the C locale, but in place: no call and no growth per byte.
  std::string out(text);
  for (char& c : out) c = LowerChar(c);
  return out;
}

bool ContainsLower(std::string_view text, std::string_view lower) {
  if (lower.size() > text.size()) return false;
  // A byte that lowering keeps ('_' in "arch_list") matches only itself: memchr finds the few
  // places to compare at, where a compare at every byte cost more than lowering a copy.
  size_t anchor = 0;
  while (anchor < lower.size() && lower[anchor] >= 'a' && lower[anchor] <= 'z') ++anchor;
  if (anchor == lower.size()) {
    for (size_t at = 0; at + lower.size() <= text.size(); ++at) {
      if (EndsWithLower(text.substr(at, lower.size()), lower)) return true;
    }
    return false;
  }
  const size_t last = text.size() - lower.size() + anchor;  // the last place the anchor can be
  for (size_t at = text.find(lower[anchor], anchor); at <= last; at = text.find(lower[anchor], at + 1)) {
    if (EndsWithLower(text.substr(at - anchor, lower.size()), lower)) return true;
  }
  return false;
}

LowerName::LowerName(std::string_view text) {
  if (text.size() > short_.size()) {
    long_ = LowerText(text);
    return;
  }
  size_ = text.size();
  std::transform(text.begin(), text.end(), short_.begin(), LowerChar);
}

bool IsPair(const Literal& lit) {
  return lit.kind == LiteralKind::kTuple && lit.items.size() == 2 && IsInt(lit.items[0]) && IsInt(lit.items[1]);
}

Tri Gate::EvaluateOn(const arch::Arch& target) const {
  Tri any = Tri::kFalse;
  for (const std::vector<Term>& group : any_of_all) {
    Tri all = Tri::kTrue;
    for (const Term& t : group) all = TriAnd(all, Evaluate(t.operand, t.op, t.literal, target));
    any = TriOr(any, all);
  }
  return any;
}

Recognizer::Recognizer(const TokenStream& ts, const std::vector<LogicalLine>& lines)
    : ts_(ts), lines_(lines), bindings_(ModuleBindings(ts, lines)) {}

std::vector<Gate> Recognizer::Run() {
  std::vector<bool> has_string(lines_.size());
  for (size_t k = 0; k < lines_.size(); ++k) {
    const LogicalLine& line = lines_[k];
    RecordProvenance(line);
    if (line.docstring) continue;
    const LineHints hints = HintsOf(ts_, line);
    if (hints.comparison) FindComparisons(line);
    if (hints.carrier) FindCarriers(line);
    if (hints.call) FindCalls(line);
    has_string[k] = hints.string;
  }
  CollectCovered();
  for (size_t k = 0; k < lines_.size(); ++k) {
    if (has_string[k]) FindArchStrings(lines_[k]);
  }
  std::stable_sort(gates_.begin(), gates_.end(),
                   [](const Gate& a, const Gate& b) { return a.first_token < b.first_token; });
  return std::move(gates_);
}

// Writes "Outer.inner\0name" into key_, one buffer for the module: no string per lookup.
const std::string& Recognizer::ScopedKey(const Scope& scope, std::string_view name) const {
  key_.clear();
  for (const std::string& part : scope.names()) {
    if (!key_.empty()) key_ += '.';
    key_ += part;
  }
  key_ += '\0';
  key_ += name;
  return key_;
}

Provenance Recognizer::Lookup(const Scope& scope, std::string_view name) const {
  if (provenance_.empty()) return Provenance::kNone;  // most modules read no capability at all
  // The ScopeName of the first n parts, innermost first, is a prefix of the whole one: the key is
  // cut back to it instead of each outer scope being joined again.
  ScopedKey(scope, {});
  size_t length = key_.size() - 1;  // of the first n parts' ScopeName
  for (size_t n = scope.size() + 1; n-- > 0;) {
    key_.resize(length);
    key_ += '\0';
    key_ += name;
    auto found = provenance_.find(key_);
    if (found != provenance_.end()) return found->second;
    if (n > 0) length = n == 1 ? 0 : length - scope.names()[n - 1].size() - 1;
  }
  return Provenance::kNone;
}

Provenance Recognizer::ClassifyPrimary(const LogicalLine& line, size_t i, size_t j, std::string_view& last_name) const {
  Provenance kind = Lookup(line.scope, ts_.Text(i));
  last_name = ts_.Text(i);
  bool to_int = false;
  for (size_t k = i + 1; k < j;) {
    if (ts_.Is(k, ".")) {
      const std::string_view attr = ts_.Text(k + 1);
      to_int = attr == "to_int" && kind == Provenance::kCapability;
      // The owner's name is read only for `.major`/`.minor`: most attributes are neither.
      if ((attr == "major" || attr == "minor") && HintsCapabilityOwner(kind, last_name)) {
        kind = attr == "major" ? Provenance::kMajor : Provenance::kMinor;
      } else {
        kind = Provenance::kNone;
      }
      last_name = attr;
      k += 2;
    } else if (ts_.Is(k, "(")) {
      if (to_int)
        kind = Provenance::kComputeCapability;
      else if (IsCapabilityGetter(last_name))
        kind = Provenance::kCapability;
      else if (last_name == "get_device_properties")
        kind = Provenance::kProperties;
      else
        kind = Provenance::kNone;
      to_int = false;
      k = ts_.match[k] + 1;
    } else {  // a subscript
      const bool index = ts_.match[k] == k + 2 && (ts_.Text(k + 1) == "0" || ts_.Text(k + 1) == "1");
      const bool capability = index && (kind == Provenance::kCapability || (kind == Provenance::kNone && k == i + 1 &&
                                                                            CapabilityHint(LowerName(last_name))));
      kind =
          index && capability ? (ts_.Text(k + 1) == "0" ? Provenance::kMajor : Provenance::kMinor) : Provenance::kNone;
      k = ts_.match[k] + 1;
    }
  }
  return kind;
}

// `major, minor = torch.cuda.get_device_capability()`, `cap = get_device_capability(dev)`,
// `props = torch.cuda.get_device_properties(0)`, `cc = major * 10 + minor`.
void Recognizer::RecordProvenance(const LogicalLine& line) {
  std::string_view targets[2];  // the first two: all that a provenance is recorded for
  size_t count = 0;
  size_t i = line.first;
  const bool paren = ts_.Is(i, "(");
  if (paren) ++i;
  while (ts_.IsName(i) && !IsKeyword(ts_.Text(i))) {
    if (count < 2) targets[count] = ts_.Text(i);
    ++count;
    ++i;
    if (paren && ts_.Is(i, ")")) ++i;
    if (!ts_.Is(i, ",")) break;
    ++i;
    if (ts_.Is(i, "*") && ts_.IsName(i + 1)) i += 2;
  }
  if (count == 0 || !ts_.Is(i, "=")) return;
  const size_t value = i + 1;
  const size_t end = PrimaryEnd(ts_, value, line.last);
  auto record = [&](std::string_view name, Provenance p) { provenance_[ScopedKey(line.scope, name)] = p; };
  std::string_view last_name;
  if (end == line.last && end > value) {
    const Provenance p = ClassifyPrimary(line, value, end, last_name);
    if (count == 1 && p != Provenance::kNone) record(targets[0], p);
    if (count >= 2 && (p == Provenance::kCapability || p == Provenance::kProperties)) {
      record(targets[0], Provenance::kMajor);
      record(targets[1], Provenance::kMinor);
    }
    return;
  }
  // NAME = major * 10 + minor
  if (count == 1 && value + 5 == line.last && ts_.Is(value + 1, "*") && ts_.Text(value + 2) == "10" &&
      ts_.Is(value + 3, "+") && Lookup(line.scope, ts_.Text(value)) == Provenance::kMajor &&
      Lookup(line.scope, ts_.Text(value + 4)) == Provenance::kMinor) {
    record(targets[0], Provenance::kComputeCapability);
  }
}

size_t Recognizer::CompareOpAt(size_t j, size_t end, Compare& op) const {
  if (j >= end) return 0;
  if (ts_.Is(j, "not") && ts_.Is(j + 1, "in")) return op = Compare::kNotIn, j + 2;
  if (ts_.Is(j, "in")) return op = Compare::kIn, j + 1;
  if (ts_.tokens[j].kind != TokenKind::kOp) return 0;
  std::optional<Compare> c = CompareFromText(ts_.Text(j));
  if (!c) return 0;
  op = *c;
  return j + 1;
}

bool Recognizer::EndsExpression(size_t next, size_t end) const {
  if (next >= end) return true;
  constexpr std::string_view kBinding[] = {"+", "-", "*", "/", "//", "%", "**", ".",
                                           "(", "[", "@", "|", "&",  "^", "<<", ">>"};
  return ts_.tokens[next].kind != TokenKind::kOp ||
         std::find(std::begin(kBinding), std::end(kBinding), ts_.Text(next)) == std::end(kBinding);
}

// `arch // 10 in [10, 11]`, `cc // 10 == 12`, `arch % 10 == 0`: arithmetic on an SM number
// (major * 10 + minor) gives its major or minor. The index after `// 10` (or `% 10`), or 0.
size_t Recognizer::SmArithmetic(const LogicalLine& line, size_t i, size_t j, Provenance& p) const {
  if (!(ts_.Is(j, "//") || ts_.Is(j, "%")) || ts_.Text(j + 1) != "10" || j + 2 > line.last) return 0;
  std::string_view last_name;
  const Provenance base = ClassifyPrimary(line, i, j, last_name);
  const LowerName lowered(last_name);
  const std::string_view lower = lowered;
  const bool sm_number =
      base == Provenance::kComputeCapability ||
      (base == Provenance::kNone && (Contains(lower, "arch") || lower == "cc" || lower.ends_with("_cc") ||
                                     Contains(lower, "sm_version") || Contains(lower, "capability")));
  if (!sm_number) return 0;
  p = ts_.Is(j, "//") ? Provenance::kMajor : Provenance::kMinor;
  return j + 2;
}

// `for kernel_cc in _generator_ccs:` (CUTLASS's generator) and `[k for sm in SMS]` iterate over
// a list; the `in` there tests nothing.
bool Recognizer::IsLoopTarget(const LogicalLine& line, size_t i) const {
  for (size_t k = i; k-- > line.first;) {
    if (ts_.Is(k, "for")) return true;
    if (!ts_.IsName(k) && !ts_.Is(k, ",") && !ts_.Is(k, "(") && !ts_.Is(k, ")")) return false;
    if (IsKeyword(ts_.Text(k))) return false;
  }
  return false;
}

bool Recognizer::TryComparison(const LogicalLine& line, size_t i, std::vector<Gate>& out) {
  if (!ts_.IsName(i) || (i > line.first && ts_.Is(i - 1, "."))) return false;
  size_t j = PrimaryEnd(ts_, i, line.last);
  Provenance arithmetic = Provenance::kNone;
  if (size_t after = SmArithmetic(line, i, j, arithmetic); after != 0) j = after;
  Compare op{};
  const size_t lit_at = CompareOpAt(j, line.last, op);
  if (lit_at == 0 || IsKeyword(ts_.Text(i))) return false;
  if (op == Compare::kIn && IsLoopTarget(line, i)) return false;
  size_t next = 0;
  std::optional<Literal> lit = ParseLiteral(ts_, lit_at, line.last, next, &bindings_);
  if (!lit || lit->kind == LiteralKind::kNone || !EndsExpression(next, line.last)) return false;
  std::string_view last_name;
  const Provenance p = arithmetic != Provenance::kNone ? arithmetic : ClassifyPrimary(line, i, j, last_name);
  std::string primary = ts_.Folded(i, j);
  std::optional<Operand> operand = ChooseOperand(p, last_name, primary, *lit, op);
  if (!operand) return false;
  out.push_back(Gate{"comparison", std::move(primary), *lit, i, next, line.scope, {{Term{*operand, op, *lit}}}});
  return true;
}

// `10 <= major`, `(9, 0) == capability`.
bool Recognizer::TryReversedComparison(const LogicalLine& line, size_t i, std::vector<Gate>& out) {
  const TokenKind kind = ts_.tokens[i].kind;
  if (kind != TokenKind::kNumber && kind != TokenKind::kString && !ts_.Is(i, "(")) return false;
  if (i > line.first) {
    const size_t prev = i - 1;
    const bool operand_before = (ts_.IsName(prev) && !IsKeyword(ts_.Text(prev))) ||
                                ts_.tokens[prev].kind == TokenKind::kNumber ||
                                ts_.tokens[prev].kind == TokenKind::kString || ts_.Is(prev, ")") || ts_.Is(prev, "]");
    const bool binds = !ts_.Is(prev, "(") && !ts_.Is(prev, "[") && !EndsExpression(prev, line.last);
    if (operand_before || binds) return false;
  }
  Compare op{};
  if (CompareOpAt(LiteralEnd(ts_, i, line.last), line.last, op) == 0) return false;  // most literals
  size_t next = 0;
  std::optional<Literal> lit = ParseLiteral(ts_, i, line.last, next, nullptr);
  const size_t k = lit ? CompareOpAt(next, line.last, op) : 0;
  if (k == 0 || op == Compare::kIn || op == Compare::kNotIn || !ts_.IsName(k) || IsKeyword(ts_.Text(k))) return false;
  const size_t j = PrimaryEnd(ts_, k, line.last);
  if (!EndsExpression(j, line.last)) return false;
  std::string_view last_name;
  const Provenance p = ClassifyPrimary(line, k, j, last_name);
  op = Flip(op);
  std::string primary = ts_.Folded(k, j);
  std::optional<Operand> operand = ChooseOperand(p, last_name, primary, *lit, op);
  if (!operand) return false;
  out.push_back(Gate{"comparison", std::move(primary), *lit, i, j, line.scope, {{Term{*operand, op, *lit}}}});
  return true;
}

void Recognizer::FindComparisons(const LogicalLine& line) {
  std::vector<Gate> found;
  for (size_t i = line.first; i < line.last; ++i) {
    if (!TryComparison(line, i, found)) TryReversedComparison(line, i, found);
  }
  MergeConditions(found);
  for (Gate& g : found) gates_.push_back(std::move(g));
}

// `major == 12 and minor == 0`: a minor comparison means nothing alone, so a chain of
// comparisons joined by and/or that holds one becomes a single "condition" gate.
void Recognizer::MergeConditions(std::vector<Gate>& found) {
  std::vector<Gate> merged;
  for (size_t a = 0; a < found.size();) {
    size_t b = a + 1;
    while (b < found.size() && found[b].first_token == found[b - 1].last_token + 1 &&
           (ts_.Is(found[b - 1].last_token, "and") || ts_.Is(found[b - 1].last_token, "or"))) {
      ++b;
    }
    const bool has_minor = std::any_of(found.begin() + a, found.begin() + b,
                                       [](const Gate& g) { return g.any_of_all[0][0].operand == Operand::kMinor; });
    if (b - a < 2 || !has_minor) {
      for (size_t k = a; k < b; ++k) merged.push_back(std::move(found[k]));
      a = b;
      continue;
    }
    Gate g{"condition", "", {}, found[a].first_token, found[b - 1].last_token, found[a].scope, {{}}};
    g.literal.kind = LiteralKind::kTuple;
    g.literal.span = ts_.Span(g.first_token, g.last_token);
    for (size_t k = a; k < b; ++k) {
      if (k > a && ts_.Is(found[k - 1].last_token, "or")) g.any_of_all.emplace_back();
      g.any_of_all.back().push_back(found[k].any_of_all[0][0]);
      g.literal.items.push_back(found[k].literal);
      g.name += (g.name.empty() ? "" : ", ") + found[k].name;
    }
    merged.push_back(std::move(g));
    a = b;
  }
  found = std::move(merged);
}

}  // namespace archpatch::python
