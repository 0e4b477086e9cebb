#include "cuda/check_macros.h"

#include <algorithm>

#include "cuda/runtime_gates.h"  // IsCheckName

namespace archpatch::cuda {
namespace {

// Whether a macro body builds a check: an `if`, a `throw`, or a call of a check macro.
bool BuildsCheck(const std::vector<std::string_view>& body) {
  for (size_t k = 0; k < body.size(); ++k) {
    if (body[k] == "if" || body[k] == "throw") return true;
    if (k + 1 < body.size() && body[k + 1] == "(" && IsCheckName(body[k])) return true;
  }
  return false;
}

}  // namespace

FileCheckMacros::FileCheckMacros(const runtime_detail::View& view, const std::vector<Token>& tokens) {
  const std::string_view src = view.src;
  for (const auto& [hash, end] : view.directives) {
    std::vector<const Token*> line;  // the directive's tokens after `#`, comments aside
    for (size_t k = hash + 1; k < tokens.size() && tokens[k].begin < end; ++k) {
      if (tokens[k].kind != Token::Kind::kComment) line.push_back(&tokens[k]);
    }
    // `define NAME(` with the '(' touching the name: a function-like macro.
    if (line.size() < 4 || line[0]->Spelling(src) != "define" || line[1]->kind != Token::Kind::kIdentifier ||
        line[2]->Spelling(src) != "(" || line[2]->begin != line[1]->end) {
      continue;
    }
    Macro macro;
    size_t k = 3;
    for (; k < line.size() && line[k]->Spelling(src) != ")"; ++k) {
      const std::string_view s = line[k]->Spelling(src);
      if (s == "...")
        macro.variadic = true;
      else if (line[k]->kind == Token::Kind::kIdentifier)
        macro.params.push_back(s);
      else if (s != ",")
        break;
    }
    if (k >= line.size() || line[k]->Spelling(src) != ")") continue;
    for (++k; k < line.size(); ++k) macro.body.push_back(line[k]->Spelling(src));
    if (BuildsCheck(macro.body)) {
      macros_.emplace(line[1]->Spelling(src), std::move(macro));  // the first definition, as the lexer met it
    }
  }
}

std::optional<std::string> FileCheckMacros::Expand(std::string_view name,
                                                   const std::vector<std::string_view>& args) const {
  auto it = macros_.find(name);
  if (it == macros_.end()) return std::nullopt;
  const Macro& m = it->second;
  const bool fits = m.variadic ? args.size() >= m.params.size() : args.size() == m.params.size();
  if (!fits && !(m.params.empty() && !m.variadic && args.size() == 1 && args[0].empty())) return std::nullopt;
  if (std::find(m.body.begin(), m.body.end(), "##") != m.body.end()) return std::nullopt;
  auto argument = [&](std::string_view token) -> std::optional<std::string> {
    if (m.variadic && token == "__VA_ARGS__") {
      std::string rest;
      for (size_t a = m.params.size(); a < args.size(); ++a)
        rest += (a > m.params.size() ? ", " : "") + std::string(args[a]);
      return rest;
    }
    auto p = std::find(m.params.begin(), m.params.end(), token);
    if (p == m.params.end()) return std::nullopt;
    return std::string(args[p - m.params.begin()]);
  };
  std::string out;
  for (size_t k = 0; k < m.body.size(); ++k) {
    if (m.body[k] == "#" && k + 1 < m.body.size() && argument(m.body[k + 1])) {
      out += "\"\" ";
      ++k;
      continue;
    }
    std::optional<std::string> replaced = argument(m.body[k]);
    out += replaced ? *replaced : std::string(m.body[k]);
    out += ' ';
    if (out.size() > kMaxExpansionBytes) return std::nullopt;
  }
  return out;
}

}  // namespace archpatch::cuda
