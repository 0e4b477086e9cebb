#include "binary/ptx.h"

#include <cstdio>

#include <fmt/format.h>

namespace archpatch::binary {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// The directive's argument when `line` starts with it: ".target sm_90a, debug" -> "sm_90a, debug".
bool Directive(std::string_view line, std::string_view name, std::string_view& argument) {
  if (line.substr(0, name.size()) != name || line.size() == name.size()) return false;
  if (line[name.size()] != ' ' && line[name.size()] != '\t') return false;
  argument = Trim(line.substr(name.size()));
  return true;
}

// Only the top of the file matters: the directives come before any code.
constexpr size_t kHeaderWindow = 64 * 1024;

}  // namespace

Result<PtxHeader> ParsePtxHeader(std::string_view text) {
  text = text.substr(0, kHeaderWindow);
  PtxHeader header;
  std::string target;
  while (!text.empty() && (header.version.empty() || target.empty())) {
    const size_t end = text.find('\n');
    std::string_view line = Trim(text.substr(0, end));
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    std::string_view argument;
    if (Directive(line, ".version", argument) && header.version.empty()) {
      header.version = std::string(argument);
    } else if (Directive(line, ".target", argument) && target.empty()) {
      target = std::string(argument.substr(0, argument.find_first_of(", \t")));
    }
  }
  if (header.version.empty() || target.empty()) return Error{"PTX without .version and .target", {}};
  Result<arch::Arch> parsed = arch::ParseArch(target);
  if (!parsed && target.rfind("sm_", 0) == 0) {
    // An arch newer than the table: keep its number so the report can still name it.
    int number = 0;
    char suffix = 0;
    if (std::sscanf(target.c_str() + 3, "%d%c", &number, &suffix) >= 1 && number >= 10) {
      header.target = {number / 10, number % 10,
                       suffix == 'a'   ? arch::Variant::kArchSpecific
                       : suffix == 'f' ? arch::Variant::kFamily
                                       : arch::Variant::kPlain};
      return header;
    }
  }
  if (!parsed) return Error{fmt::format("PTX .target '{}' is not an arch", target), {}};
  header.target = *parsed;
  return header;
}

bool LooksLikePtx(std::string_view text) {
  return text.substr(0, 4096).find("\n.version ") != std::string_view::npos || text.substr(0, 9) == ".version ";
}

}  // namespace archpatch::binary
