// The input of `archpatch eval --expr-file`: one #if condition per line, so that grep output can
// be fed in as it is (`grep -h '#if' -r include/ > conds.txt`).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace archpatch::cuda {

// One expression and where it came from ("conds.txt" line 14), for messages with a caret.
struct SourcedExpression {
  std::string text;
  std::string origin;
  int line = 1;
  int column_offset = 0;  // bytes of the first line before `text` (indent, a `#if `)
};

// One expression per line; a trailing backslash continues it onto the next line. Blank lines and
// lines starting with '#' are skipped, except that a leading `#if`/`#elif` is stripped.
std::vector<SourcedExpression> ExpressionsOfText(std::string_view text, const std::string& origin);

// ExpressionsOfText of a file (bounded: ReadInputFile); errors name the file.
Result<std::vector<SourcedExpression>> ReadExpressionFile(const std::filesystem::path& path);

}  // namespace archpatch::cuda
