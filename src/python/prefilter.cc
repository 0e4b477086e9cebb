#include "python/prefilter.h"

#include "python/verdict.h"

namespace archpatch::python {

// Recognizer::CompareOpAt's operators, asked of every token once instead of at every start. Its
// first byte settles most tokens: every such operator starts with one of "=!<>", `in` with 'i'.
bool MayHoldComparison(const TokenStream& ts, const LogicalLine& line) {
  for (size_t i = line.first; i < line.last; ++i) {
    const Token& t = ts.tokens[i];
    const char c = ts.source[t.begin];
    if (c == 'i' && ts.Is(i, "in")) return true;
    const bool starts_op = c == '=' || c == '!' || c == '<' || c == '>';
    if (starts_op && t.kind == TokenKind::kOp && CompareFromText(ts.Text(i))) return true;
  }
  return false;
}

bool MayNameArch(std::string_view body, bool arch_list_line) {
  return body.find('=') != std::string_view::npos || body.starts_with("sm_") || body.starts_with("compute_") ||
         (arch_list_line && body.find('.') != std::string_view::npos);
}

}  // namespace archpatch::python
