#include "util/result.h"

#include <fmt/format.h>

namespace archpatch {

std::string Location::str() const {
  if (file.empty()) return line ? fmt::format("{}:{}", line, column) : "";
  if (line == 0) return file;
  if (column == 0) return fmt::format("{}:{}", file, line);
  return fmt::format("{}:{}:{}", file, line, column);
}

std::string Error::str() const {
  std::string place = where.str();
  return place.empty() ? message : place + ": " + message;
}

}  // namespace archpatch
