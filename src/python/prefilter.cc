#include "python/prefilter.h"

#include "python/recognizer.h"
#include "python/verdict.h"

namespace archpatch::python {
namespace {

// Recognizer::CompareOpAt's operators: ==, !=, <, <=, >, >= (every one starts with one of "=!<>").
bool IsComparisonOp(const TokenStream& ts, size_t i) {
  const char c = ts.source[ts.tokens[i].begin];
  return (c == '=' || c == '!' || c == '<' || c == '>') && CompareFromText(ts.Text(i)).has_value();
}

}  // namespace

LineHints HintsOf(const TokenStream& ts, const LogicalLine& line) {
  LineHints hints;
  for (size_t i = line.first; i < line.last; ++i) {
    switch (ts.tokens[i].kind) {
      case TokenKind::kString: hints.string = true; break;
      case TokenKind::kOp: hints.comparison = hints.comparison || IsComparisonOp(ts, i); break;
      case TokenKind::kName: {
        const std::string_view name = ts.Text(i);
        hints.comparison = hints.comparison || name == "in";  // `not in` too
        hints.carrier = hints.carrier || IsCarrierName(name);
        if (name.size() >= kShortestPredicateCallee && i + 1 < line.last && ts.Is(i + 1, "(")) hints.call = true;
        break;
      }
      default: break;
    }
  }
  return hints;
}

bool MayHoldComparison(const TokenStream& ts, const LogicalLine& line) { return HintsOf(ts, line).comparison; }

bool IsCarrierName(std::string_view name) {
  if (name.size() < 3) return false;  // "ccs" is the shortest ending
  // The last two bytes pick the one or two endings that can match: that settles most names
  // (HintsOf asks about every name of every line) before any is compared.
  const char last = LowerChar(name.back()), before = LowerChar(name[name.size() - 2]);
  auto ends = [&](std::string_view ending) { return EndsWithLower(name, ending); };
  bool ending = false;
  if (last == 't') {
    ending = before == 's' && (ends("arch_list") || ends("compute_capability_list"));
  } else if (last == 's') {
    switch (before) {
      case 'n': ending = ends("major_versions") || ends("sm_versions"); break;
      case 'r': ending = ends("majors"); break;
      case 'h': ending = ends("archs"); break;
      case 'e': ending = ends("arches") || ends("capabilities"); break;
      case 'c': ending = ends("ccs"); break;
      default: break;
    }
  }
  return ending && !ContainsLower(name, "flags");
}

bool MayNameArch(std::string_view body, bool arch_list_line) {
  return body.find('=') != std::string_view::npos || body.starts_with("sm_") || body.starts_with("compute_") ||
         (arch_list_line && body.find('.') != std::string_view::npos);
}

}  // namespace archpatch::python
