#include "util/yaml_text.h"

#include <algorithm>

namespace archpatch {
namespace {

bool IsMarker(std::string_view row, std::string_view marker) {
  return row.starts_with(marker) && (row.size() == 3 || row[3] == ' ' || row[3] == '\t' || row[3] == '\r');
}

bool IsContent(std::string_view row) {
  const size_t first = row.find_first_not_of(" \t\r");
  return first != std::string_view::npos && row[first] != '#';
}

}  // namespace

std::optional<int> SecondYamlDocumentLine(std::string_view text) {
  bool started = false, content = false, ended = false;  // of the first document
  int line = 1;
  for (size_t start = 0; start < text.size(); ++line) {
    const size_t end = std::min(text.find('\n', start), text.size());
    const std::string_view row = text.substr(start, end - start);
    start = end + 1;
    if (IsMarker(row, "---")) {
      if (started || content || ended) return line;
      started = true;
      if (IsContent(row.substr(3))) content = true;  // "--- value"
    } else if (IsMarker(row, "...")) {
      ended = started || content || ended;
    } else if (IsContent(row) && (row[0] != '%')) {
      if (ended) return line;
      content = true;
    }
  }
  return std::nullopt;
}

}  // namespace archpatch
