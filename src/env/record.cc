// RECORD: the CSV that lists every installed file (PEP 376, the wheel spec): "path,hash,size".
// Fields may be quoted ("a,b.py"), with "" standing for one quote inside a quoted field.
#include <charconv>

#include <fmt/format.h>

#include "env/environment.h"

namespace archpatch::env {
namespace {

// Splits one CSV row; returns false on an unterminated quote.
bool SplitCsvRow(std::string_view line, std::vector<std::string>& fields) {
  fields.assign(1, "");
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        fields.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        fields.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  return !quoted;
}

Result<RecordEntry> ParseRow(const std::vector<std::string>& fields, const Location& where) {
  if (fields.size() != 3) {
    return Error{fmt::format("expected 3 fields (path,hash,size), found {}", fields.size()), where};
  }
  RecordEntry entry;
  entry.path = fields[0];
  if (entry.path.empty()) return Error{"empty path", where};
  if (!fields[1].empty()) {
    const size_t equals = fields[1].find('=');
    if (equals == std::string::npos) {
      return Error{fmt::format("hash '{}' is not 'algorithm=digest'", fields[1]), where};
    }
    entry.hash_algorithm = fields[1].substr(0, equals);
    entry.hash = fields[1].substr(equals + 1);
  }
  if (!fields[2].empty()) {
    uint64_t size = 0;
    auto [end, ec] = std::from_chars(fields[2].data(), fields[2].data() + fields[2].size(), size);
    if (ec != std::errc() || end != fields[2].data() + fields[2].size()) {
      return Error{fmt::format("size '{}' is not a number", fields[2]), where};
    }
    entry.size = size;
  }
  return entry;
}

}  // namespace

Result<std::vector<RecordEntry>> ParseRecord(std::string_view text, const std::string& file_name) {
  std::vector<RecordEntry> entries;
  std::vector<std::string> fields;
  int line_number = 0;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    const Location where{file_name, line_number, 0};
    if (!SplitCsvRow(line, fields)) return Error{"unterminated quoted field", where};
    Result<RecordEntry> entry = ParseRow(fields, where);
    if (!entry) return entry.error();
    entries.push_back(std::move(*entry));
  }
  return entries;
}

}  // namespace archpatch::env
