#include "python/widen.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "python/syntax.h"
#include "python/verdict.h"

namespace archpatch::python {
namespace {

bool IsDigit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

std::string_view Suffix(arch::Variant v) {
  return v == arch::Variant::kArchSpecific ? "a" : v == arch::Variant::kFamily ? "f" : "";
}

// The variant a new entry gets: the target's own, or, for a plain target, the one the example
// uses when the target has it ("sm_100a" in the list and target sm_120 -> "sm_120a").
arch::Variant VariantFor(const arch::Arch& target, char example_suffix) {
  if (target.variant != arch::Variant::kPlain) return target.variant;
  const arch::Variant wanted = example_suffix == 'a'   ? arch::Variant::kArchSpecific
                               : example_suffix == 'f' ? arch::Variant::kFamily
                                                       : arch::Variant::kPlain;
  return arch::IsKnown(arch::Arch{target.major, target.minor, wanted}) ? wanted : arch::Variant::kPlain;
}

// Rewrites every arch number in `example` ("sm_90a", "9.0a", "compute_90a,code=sm_90a", "90")
// for `target`, keeping everything around the numbers.
std::string RenderLike(std::string_view example, const arch::Arch& target) {
  std::string out;
  for (size_t i = 0; i < example.size();) {
    size_t j = i;
    while (j < example.size() && IsDigit(example[j])) ++j;
    const bool starts = j > i && (i == 0 || !IsDigit(example[i - 1]));
    const bool dotted = starts && j + 1 < example.size() && example[j] == '.' && IsDigit(example[j + 1]) && j - i <= 2;
    const bool plain = starts && !dotted && (j - i == 2 || j - i == 3);
    if (!dotted && !plain) {
      out += example[i];
      ++i;
      continue;
    }
    size_t end = dotted ? j + 2 : j;
    const char suffix = end < example.size() && (example[end] == 'a' || example[end] == 'f') ? example[end] : '\0';
    if (suffix) ++end;
    const std::string_view variant = Suffix(VariantFor(target, suffix));
    out += dotted ? fmt::format("{}.{}{}", target.major, target.minor, variant)
                  : fmt::format("{}{}", target.number(), variant);
    i = end;
  }
  return out;
}

std::optional<Operand> OperandOf(const Finding& f, const Literal& lit, AddMode mode) {
  const std::string operand = f.python() ? f.python()->operand : "";
  if (operand == "major") return Operand::kMajor;
  if (operand == "capability") return Operand::kCapability;
  if (operand == "compute_capability") return Operand::kComputeCapability;
  if (operand == "arch_name") return Operand::kArchName;
  if (lit.IsCollection() && lit.items.empty()) return mode == AddMode::kMajor ? Operand::kMajor : Operand::kCapability;
  return std::nullopt;
}

// The text of one new element for `target`, in the style of the literal's first element.
std::string NewElement(std::string_view fragment, const Literal& lit, Operand operand, const arch::Arch& t) {
  const Literal* first = lit.items.empty() ? nullptr : &lit.items.front();
  switch (operand) {
    case Operand::kMajor: return std::to_string(t.major);
    case Operand::kComputeCapability: return std::to_string(t.number());
    case Operand::kCapability: {
      const bool tight = first && fragment.substr(first->span.begin, first->span.end - first->span.begin).find(", ") ==
                                      std::string_view::npos;
      return tight ? fmt::format("({},{})", t.major, t.minor) : fmt::format("({}, {})", t.major, t.minor);
    }
    case Operand::kArchName:
    case Operand::kMinor: break;
  }
  const std::string_view token =
      first ? fragment.substr(first->span.begin, first->span.end - first->span.begin) : std::string_view("\"sm_90\"");
  const size_t open = token.find_first_of("'\"");
  const size_t quotes =
      token.size() - open >= 6 && token[open + 1] == token[open] && token[open + 2] == token[open] ? 3 : 1;
  const std::string_view body = token.substr(open + quotes, token.size() - open - 2 * quotes);
  return std::string(token.substr(0, open + quotes)) + RenderLike(body, t) +
         std::string(token.substr(token.size() - quotes));
}

// Where new elements go and how they are separated: after the last element (and after its
// trailing comma on multi-line literals), with the spacing or indentation the literal uses.
std::string InsertElements(std::string_view fragment, const TokenStream& ts, const Literal& lit,
                           const std::vector<std::string>& added) {
  const size_t close = lit.last_token - 1;
  std::string text(fragment);
  if (lit.items.empty()) {
    std::string inner;
    for (const std::string& a : added) inner += (inner.empty() ? "" : ", ") + a;
    if (lit.kind == LiteralKind::kTuple && added.size() == 1) inner += ",";
    return text.insert(ts.tokens[close].begin, inner);
  }
  const Literal& last = lit.items.back();
  const bool trailing_comma = ts.Is(last.last_token, ",");
  const std::string_view newline = fragment.find("\r\n") != std::string_view::npos ? "\r\n" : "\n";
  const size_t line_start = fragment.find_last_of("\r\n", last.span.begin);
  const bool multiline =
      line_start != std::string_view::npos && fragment.find_first_not_of(" \t", line_start + 1) == last.span.begin;
  std::string insert;
  size_t at = last.span.end;
  if (multiline) {
    const std::string indent(fragment.substr(line_start + 1, last.span.begin - line_start - 1));
    if (trailing_comma) at = ts.tokens[last.last_token].end;
    for (const std::string& a : added) {
      insert += (trailing_comma ? "" : ",") + std::string(newline) + indent + a + (trailing_comma ? "," : "");
    }
  } else {
    // One element gives no separator to copy: a tight pair like (9,0) asks for ",", else PEP 8's ", ".
    const std::string_view only = fragment.substr(last.span.begin, last.span.end - last.span.begin);
    std::string sep =
        only.find(',') != std::string_view::npos && only.find(", ") == std::string_view::npos ? "," : ", ";
    if (lit.items.size() >= 2) {
      const Literal& prev = lit.items[lit.items.size() - 2];
      sep = std::string(fragment.substr(prev.span.end, last.span.begin - prev.span.end));
    }
    for (const std::string& a : added) insert += sep + a;
  }
  return text.insert(at, insert);
}

// "8.0 9.0a" -> "8.0 9.0a 12.0a": a TORCH_CUDA_ARCH_LIST-style value inside one string.
std::string WidenListString(std::string_view fragment, const Literal& lit, const std::vector<arch::Arch>& targets) {
  std::string body = lit.text;
  const size_t sep_at = body.find_first_of(" ;,");
  const std::string sep = sep_at == std::string::npos ? " " : std::string(1, body[sep_at]);
  const std::string example = body.substr(0, sep_at);
  const std::optional<std::vector<ArchName>> names = ParseArchListString(body);
  std::string added;
  for (const arch::Arch& t : targets) {
    const bool present =
        names && std::any_of(names->begin(), names->end(), [&](const ArchName& n) { return arch::NameMeans(n, t); });
    const std::string entry = RenderLike(example, t);
    if (!present && added.find(entry) == std::string::npos) added += sep + entry;
  }
  const size_t close = fragment.find_last_not_of("'\"") + 1;
  return std::string(fragment.substr(0, close)) + added + std::string(fragment.substr(close));
}

}  // namespace

Result<std::string> WidenLiteral(std::string_view contents, const Finding& finding,
                                 const std::vector<arch::Arch>& targets, AddMode mode) {
  const Location where{finding.file, finding.line, finding.column};
  if (finding.span.begin > finding.span.end || finding.span.end > contents.size()) {
    return Error{"the finding's span lies outside the file (was it changed since the audit?)", where};
  }
  const std::string_view fragment = contents.substr(finding.span.begin, finding.span.end - finding.span.begin);
  const std::string shape = finding.python() ? finding.python()->shape : "";
  if (shape == "condition") {
    return Error{
        fmt::format("'{}' (condition gate) is a single value, not a list: widen it with a text edit", fragment), where};
  }
  Result<std::vector<Token>> tokens = Tokenize(finding.file, fragment);
  size_t next = 0;
  std::optional<Literal> lit;
  const TokenStream ts = MakeStream(fragment, tokens ? std::move(*tokens) : std::vector<Token>{});
  if (tokens) lit = ParseLiteral(ts, 0, ts.tokens.size(), next, nullptr);
  if (!lit || ts.tokens[next].kind != TokenKind::kNewline) {
    return Error{fmt::format("'{}' is not a literal archpatch can widen", fragment), where};
  }
  if (lit->kind == LiteralKind::kString &&
      (shape == "arch-list-string" || shape == "keyword" || shape == "assignment")) {
    return WidenListString(fragment, *lit, targets);
  }
  if (!lit->IsCollection()) {
    return Error{fmt::format("'{}' ({} gate) is a single value, not a list: widen it with a text edit", fragment,
                             shape.empty() ? "unknown" : shape),
                 where};
  }
  std::optional<Operand> operand = OperandOf(finding, *lit, mode);
  if (!operand || *operand == Operand::kMinor) return Error{fmt::format("'{}' holds no arch values", fragment), where};
  if ((*operand == Operand::kMajor && mode == AddMode::kCapability) ||
      (*operand == Operand::kCapability && mode == AddMode::kMajor)) {
    return Error{fmt::format("'{}' holds {}s; the rule asks to add a {}", fragment, OperandName(*operand),
                             mode == AddMode::kMajor ? "major" : "(major, minor) capability"),
                 where};
  }
  std::vector<std::string> added;
  for (const arch::Arch& t : targets) {
    if (Evaluate(*operand, Compare::kIn, *lit, t) == Tri::kTrue) continue;
    std::string element = NewElement(fragment, *lit, *operand, t);
    if (std::find(added.begin(), added.end(), element) == added.end()) added.push_back(std::move(element));
  }
  if (added.empty()) return std::string(fragment);
  return InsertElements(fragment, ts, *lit, added);
}

}  // namespace archpatch::python
