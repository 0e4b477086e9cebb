#include "python/scanner.h"

#include <algorithm>
#include <set>
#include <tuple>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "python/direction.h"
#include "python/recognizer.h"

namespace archpatch::python {
namespace {

gate::PythonValue ValueOf(const Literal& lit) {
  using Type = gate::PythonValue::Type;
  switch (lit.kind) {
    case LiteralKind::kInt: return {Type::kInt, lit.number, "", {}};
    case LiteralKind::kString: return {Type::kString, 0, lit.text, {}};
    case LiteralKind::kNone:
    case LiteralKind::kOpaque: return {};
    default: break;
  }
  gate::PythonValue list{Type::kList, 0, "", {}};
  for (const Literal& item : lit.items) list.items.push_back(ValueOf(item));
  return list;
}

// A scalar as the --json output spells it: 9, "sm_90" (quoted, escaped as JSON does), null.
std::string ScalarText(const Literal& lit) {
  if (lit.kind == LiteralKind::kInt) return std::to_string(lit.number);
  if (lit.kind != LiteralKind::kString) return "null";
  std::string out = "\"";
  for (unsigned char c : lit.text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20)
          out += fmt::format("\\u{:04x}", c);
        else
          out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

std::string ValuesText(const Literal& lit) {
  if (!lit.IsCollection()) return ScalarText(lit);
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
    return fmt::format("'{}' admits only {} {}", g.name, kPlural[static_cast<int>(term.operand)],
                       ValuesText(g.literal));
  }
  if (g.shape == "compute-capability-list") {
    return fmt::format("'{}' admits only compute capabilities {}", g.name, ValuesText(g.literal));
  }
  if (g.shape == "nvcc-arch-flag")
    return fmt::format("nvcc flag '{}' builds for {}", g.literal.text, ValuesText(term.literal));
  if (g.shape == "arch-string") return fmt::format("arch string '{}'", g.literal.text);
  if (g.shape == "arch-list-string") return fmt::format("arch list '{}'", g.literal.text);
  return fmt::format("'{}'", text);
}

// Comparisons, conditions and predicates are branches: their direction decides what true means.
bool IsBranchShape(const Gate& g) {
  return g.shape == "comparison" || g.shape == "condition" || g.shape == "predicate";
}

Finding ToFinding(const std::string& file, const TokenStream& ts, const Gate& g, const std::vector<arch::Arch>& arches,
                  const GateDirection& direction) {
  Finding f;
  const Token& at = ts.tokens[g.first_token];
  f.file = file;
  f.line = at.line;
  f.column = at.column;
  f.kind = gate::Kind::kPythonGate;
  f.text = ts.Folded(g.first_token, g.last_token);
  f.scope = ScopeName(g.scope);
  f.span = g.literal.span;
  std::vector<Tri> values;
  for (const arch::Arch& a : arches) {
    const Tri holds = g.EvaluateOn(a);
    values.push_back(direction.TrueAdmits() ? holds : TriNot(holds));
    f.verdict.push_back({a.name(), values.back()});
  }
  const std::string refused = JoinedArchNames(arches, values, Tri::kFalse);
  const std::string unknown = JoinedArchNames(arches, values, Tri::kUnknown);
  f.severity = refused.empty() ? Severity::kInfo : Severity::kWarning;
  f.summary = Describe(g, f.text) + ": ";
  f.summary += refused.empty() ? "no audited arch is refused" : refused + " refused";
  if (!unknown.empty()) f.summary += "; unknown for " + unknown;

  gate::PythonForm form;
  form.shape = g.shape;
  form.name = g.name;
  if (IsBranchShape(g)) {
    f.direction = direction.branch;
    form.negated = direction.negated;
  }
  if (g.shape == "condition") {
    for (const auto& group : g.any_of_all) {
      for (const Term& t : group) {
        form.terms.push_back({std::string(OperandName(t.operand)), std::string(CompareText(t.op)), ValueOf(t.literal)});
      }
    }
  } else {
    const Term& term = g.any_of_all[0][0];
    form.operand = OperandName(term.operand);
    form.op = CompareText(term.op);
    form.values = ValueOf(g.literal);
  }
  if (!g.literal.via.empty()) {  // a module-level name: the step is its definition's literal
    const Token& def = ts.tokens[g.literal.first_token];
    f.via.push_back({file, def.line, def.column, ts.Folded(g.literal.first_token, g.literal.last_token), g.literal.via,
                     std::nullopt});
  }
  form.literal_span = g.literal.span;
  f.form = std::move(form);
  return f;
}

// A module-level capability list is reported where the module uses it (those findings carry
// `via` to it); a private one that nothing here compares against is no gate (CUTLASS's
// `_generator_ccs`, only iterated). A public one stays: other modules may import it.
void DropModuleLists(std::vector<Finding>& findings) {
  std::set<int> used;
  for (const Finding& f : findings) {
    if (!f.via.empty()) used.insert(f.via.front().line);
  }
  std::erase_if(findings, [&](const Finding& f) {
    const gate::PythonForm* form = f.python();
    if (!f.scope.empty() || !form || form->shape != "assignment") return false;
    return used.count(f.line) > 0 || form->name.starts_with("_");
  });
}

}  // namespace

namespace {

// The module's gates as findings, from the syntax already read; `statements` indexes it.
std::vector<Finding> GateFindings(const std::string& file, const ModuleSyntax& syntax, const StatementIndex& statements,
                                  const std::vector<Gate>& gates, const std::vector<arch::Arch>& arches) {
  std::vector<Finding> findings;
  std::set<std::tuple<size_t, size_t, size_t>> seen;  // literal span + where it is used
  for (const Gate& g : gates) {
    if (!seen.insert({g.literal.span.begin, g.literal.span.end, g.first_token}).second) continue;
    const GateDirection direction =
        IsBranchShape(g) ? statements.DirectionOf(g.first_token, g.last_token) : GateDirection{};
    findings.push_back(ToFinding(file, syntax.ts, g, arches, direction));
  }
  DropModuleLists(findings);
  SortFindings(findings);
  return findings;
}

Result<ModuleSyntax> ReadSyntax(const std::string& file, std::string_view contents) {
  Result<Tokenized> tokens = TokenizeMatched(file, contents);
  if (!tokens) return tokens.error();
  ModuleSyntax syntax;
  syntax.ts = MakeStream(contents, std::move(*tokens));
  syntax.lines = SplitLines(syntax.ts);
  return syntax;
}

}  // namespace

Result<ScannedModule> ScanPythonModule(const std::string& file, std::string_view contents,
                                       const std::vector<arch::Arch>& arches) {
  Result<ModuleSyntax> syntax = ReadSyntax(file, contents);
  if (!syntax) return syntax.error();
  ScannedModule out;
  out.syntax = std::move(*syntax);
  const TokenStream& ts = out.syntax.ts;
  const std::vector<LogicalLine>& lines = out.syntax.lines;
  const std::vector<Gate> gates = Recognizer(ts, lines).Run();
  const StatementIndex statements(ts, lines);
  out.findings = GateFindings(file, out.syntax, statements, gates, arches);
  out.summary = SummarizeModule(file, ts, lines, gates, arches);
  out.summary.chains = FindChains(statements, out.findings, arches.size());
  spdlog::debug("python: {}: {} tokens, {} gates, {} predicates", file, ts.tokens.size(), out.findings.size(),
                out.summary.predicates.size());
  return out;
}

// Without the package model's summary: the callers (rules located in a file, a file's own scan)
// take the findings alone, and the summary was a quarter of a module's scan.
Result<std::vector<Finding>> ScanPython(const std::string& file, std::string_view contents,
                                        const std::vector<arch::Arch>& arches) {
  Result<ModuleSyntax> syntax = ReadSyntax(file, contents);
  if (!syntax) return syntax.error();
  const std::vector<Gate> gates = Recognizer(syntax->ts, syntax->lines).Run();
  return GateFindings(file, *syntax, StatementIndex(syntax->ts, syntax->lines), gates, arches);
}

}  // namespace archpatch::python
