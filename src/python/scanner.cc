#include "python/scanner.h"

#include <algorithm>
#include <set>
#include <tuple>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "python/recognizer.h"

namespace archpatch::python {
namespace {

nlohmann::ordered_json ValuesJson(const Literal& lit) {
  switch (lit.kind) {
    case LiteralKind::kInt: return lit.number;
    case LiteralKind::kString: return lit.text;
    case LiteralKind::kNone:
    case LiteralKind::kOpaque: return nullptr;
    default: break;
  }
  nlohmann::ordered_json items = nlohmann::ordered_json::array();
  for (const Literal& item : lit.items) items.push_back(ValuesJson(item));
  return items;
}

std::string ValuesText(const Literal& lit) {
  if (!lit.IsCollection()) return ValuesJson(lit).dump();
  std::string out;
  for (const Literal& item : lit.items) {
    out += (out.empty() ? "" : ", ") + (item.kind == LiteralKind::kString ? item.text : ValuesText(item));
  }
  return out;
}

// "only majors 9, 10 pass", "'major >= 10'", "nvcc flag '-gencode=...'".
std::string Describe(const Gate& g, const std::string& text) {
  const Term& term = g.any_of_all[0][0];
  if (g.shape == "keyword" || g.shape == "assignment") {
    constexpr std::string_view kPlural[] = {"majors", "minors", "capabilities", "compute capabilities", "arches"};
    return fmt::format("'{}' admits only {} {}", g.name, kPlural[static_cast<int>(term.operand)], ValuesText(g.literal));
  }
  if (g.shape == "compute-capability-list") {
    return fmt::format("'{}' admits only compute capabilities {}", g.name, ValuesText(g.literal));
  }
  if (g.shape == "nvcc-arch-flag") return fmt::format("nvcc flag '{}' builds for {}", g.literal.text, ValuesText(term.literal));
  if (g.shape == "arch-string") return fmt::format("arch string '{}'", g.literal.text);
  if (g.shape == "arch-list-string") return fmt::format("arch list '{}'", g.literal.text);
  return fmt::format("'{}'", text);
}

// Chips whose every audited variant is false are named once by their plain name.
std::vector<std::string> Named(const std::vector<arch::Arch>& arches, const std::vector<Tri>& values, Tri which) {
  std::vector<std::string> names;
  for (size_t k = 0; k < arches.size(); ++k) {
    if (values[k] != which) continue;
    bool whole_chip = true;
    for (size_t m = 0; m < arches.size(); ++m) {
      if (arches[m].plain() == arches[k].plain() && values[m] != which) whole_chip = false;
    }
    std::string name = whole_chip ? arches[k].plain().name() : arches[k].name();
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  return names;
}

std::string Joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

Finding ToFinding(const std::string& file, const TokenStream& ts, const Gate& g, const std::vector<arch::Arch>& arches) {
  Finding f;
  const Token& at = ts.tokens[g.first_token];
  f.file = file;
  f.line = at.line;
  f.column = at.column;
  f.kind = "python-gate";
  f.text = ts.Folded(g.first_token, g.last_token);
  f.scope = ScopeName(g.scope);
  f.span = g.literal.span;
  std::vector<Tri> values;
  for (const arch::Arch& a : arches) {
    values.push_back(g.EvaluateOn(a));
    f.verdict.push_back({a.name(), values.back()});
  }
  const std::vector<std::string> refused = Named(arches, values, Tri::kFalse);
  const std::vector<std::string> unknown = Named(arches, values, Tri::kUnknown);
  f.severity = refused.empty() ? Severity::kInfo : Severity::kWarning;
  f.summary = Describe(g, f.text) + ": ";
  f.summary += refused.empty() ? "no audited arch is refused" : Joined(refused) + " refused";
  if (!unknown.empty()) f.summary += "; unknown for " + Joined(unknown);

  f.details["shape"] = g.shape;
  f.details["name"] = g.name;
  if (g.shape == "condition") {
    nlohmann::ordered_json parts = nlohmann::ordered_json::array();
    for (const auto& group : g.any_of_all) {
      for (const Term& t : group) {
        parts.push_back({{"operand", OperandName(t.operand)}, {"op", CompareText(t.op)}, {"value", ValuesJson(t.literal)}});
      }
    }
    f.details["values"] = parts;
  } else {
    const Term& term = g.any_of_all[0][0];
    f.details["operand"] = OperandName(term.operand);
    f.details["op"] = CompareText(term.op);
    f.details["values"] = ValuesJson(g.literal);
  }
  if (!g.literal.via.empty()) f.details["via"] = g.literal.via;
  f.details["literal_span"] = {{"begin", g.literal.span.begin}, {"end", g.literal.span.end}};
  return f;
}

}  // namespace

Result<std::vector<Finding>> ScanPython(const std::string& file, std::string_view contents,
                                        const std::vector<arch::Arch>& arches) {
  Result<std::vector<Token>> tokens = Tokenize(file, contents);
  if (!tokens) return tokens.error();
  const TokenStream ts = MakeStream(contents, std::move(*tokens));
  const std::vector<LogicalLine> lines = SplitLines(ts);
  const std::vector<Gate> gates = Recognizer(ts, lines).Run();

  std::vector<Finding> findings;
  std::set<std::tuple<size_t, size_t, size_t>> seen;  // literal span + where it is used
  for (const Gate& g : gates) {
    if (!seen.insert({g.literal.span.begin, g.literal.span.end, g.first_token}).second) continue;
    findings.push_back(ToFinding(file, ts, g, arches));
  }
  SortFindings(findings);
  spdlog::debug("python: {}: {} tokens, {} gates", file, ts.tokens.size(), findings.size());
  return findings;
}

}  // namespace archpatch::python
