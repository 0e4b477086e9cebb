#include "cuda/expression_file.h"

#include <optional>

#include "util/input_file.h"

namespace archpatch::cuda {
namespace {

// The expression on one (continued) line, without its indent and a leading `#if`/`#elif`;
// nothing for blank and '#' comment lines.
std::optional<SourcedExpression> ExpressionOfLine(const std::string& line, const std::string& origin, int line_no) {
  size_t first = line.find_first_not_of(" \t\r");
  if (first == std::string::npos) return std::nullopt;
  for (std::string_view directive : {"#if", "#elif"}) {
    const std::string_view rest = std::string_view(line).substr(first);
    if (rest.substr(0, directive.size()) == directive && rest.size() > directive.size() &&
        (rest[directive.size()] == ' ' || rest[directive.size()] == '\t')) {
      first = line.find_first_not_of(" \t", first + directive.size());
    }
  }
  if (first == std::string::npos || line[first] == '#') return std::nullopt;
  return SourcedExpression{line.substr(first), origin, line_no, static_cast<int>(first)};
}

}  // namespace

std::vector<SourcedExpression> ExpressionsOfText(std::string_view text, const std::string& origin) {
  std::vector<SourcedExpression> out;
  std::string pending;
  int line_no = 0, start = 0;
  while (!text.empty()) {
    const size_t eol = text.find('\n');
    const std::string_view line = text.substr(0, eol);
    text.remove_prefix(eol == std::string_view::npos ? text.size() : eol + 1);
    ++line_no;
    if (pending.empty()) start = line_no;
    pending += line;
    if (!pending.empty() && pending.back() == '\\') {
      pending += '\n';
      continue;
    }
    if (std::optional<SourcedExpression> e = ExpressionOfLine(pending, origin, start)) out.push_back(*e);
    pending.clear();
  }
  if (std::optional<SourcedExpression> e = ExpressionOfLine(pending, origin, start)) out.push_back(*e);
  return out;
}

Result<std::vector<SourcedExpression>> ReadExpressionFile(const std::filesystem::path& path) {
  Result<std::string> bytes = ReadInputFile(path, kMaxSourceBytes);
  if (!bytes) return bytes.error();
  return ExpressionsOfText(*bytes, path.string());
}

}  // namespace archpatch::cuda
