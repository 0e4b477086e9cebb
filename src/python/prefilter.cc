#include "python/prefilter.h"

#include <algorithm>

#include "python/recognizer.h"
#include "python/verdict.h"

namespace archpatch::python {
namespace {

// Recognizer::CompareOpAt's operators, asked of every token once instead of at every start. Its
// first byte settles most tokens: every such operator starts with one of "=!<>", `in` with 'i'.
bool IsComparisonToken(const TokenStream& ts, size_t i) {
  const Token& t = ts.tokens[i];
  const char c = ts.source[t.begin];
  if (c == 'i' && ts.Is(i, "in")) return true;
  const bool starts_op = c == '=' || c == '!' || c == '<' || c == '>';
  return starts_op && t.kind == TokenKind::kOp && CompareFromText(ts.Text(i)).has_value();
}

}  // namespace

LineHints HintsOf(const TokenStream& ts, const LogicalLine& line) {
  LineHints hints;
  for (size_t i = line.first; i < line.last; ++i) {
    const TokenKind kind = ts.tokens[i].kind;
    if (kind == TokenKind::kString) {
      hints.string = true;
      continue;
    }
    if (!hints.comparison && IsComparisonToken(ts, i)) hints.comparison = true;
    if (kind != TokenKind::kName) continue;
    const std::string_view name = ts.Text(i);
    if (!hints.carrier && IsCarrierName(name)) hints.carrier = true;
    if (name.size() >= kShortestPredicateCallee && i + 1 < line.last && ts.Is(i + 1, "(")) hints.call = true;
  }
  return hints;
}

bool MayHoldComparison(const TokenStream& ts, const LogicalLine& line) { return HintsOf(ts, line).comparison; }

bool IsCarrierName(std::string_view name) {
  // Every ending below ends in 's' or 't': that settles most names (HintsOf asks about every name
  // of every line) before any is compared.
  const char last = name.empty() ? '\0' : static_cast<char>(name.back() | 0x20);
  if (last != 's' && last != 't') return false;
  constexpr std::string_view kEndings[] = {
      "major_versions",          "majors", "archs", "arches", "arch_list", "capabilities", "sm_versions",
      "compute_capability_list", "ccs"};
  const bool ending =
      std::any_of(std::begin(kEndings), std::end(kEndings), [&](std::string_view e) { return EndsWithLower(name, e); });
  return ending && !ContainsLower(name, "flags");
}

bool MayNameArch(std::string_view body, bool arch_list_line) {
  return body.find('=') != std::string_view::npos || body.starts_with("sm_") || body.starts_with("compute_") ||
         (arch_list_line && body.find('.') != std::string_view::npos);
}

}  // namespace archpatch::python
