#include "plan/locate.h"

#include <algorithm>

#include <fmt/format.h>

#include "cuda/condition.h"
#include "cuda/functions.h"
#include "cuda/tokens.h"
#include "cuda/widen.h"
#include "python/scanner.h"
#include "python/syntax.h"
#include "python/tokenizer.h"
#include "python/widen.h"
#include "scan/scan.h"

namespace archpatch::plan {
namespace {

Place MakePlace(std::string_view contents, size_t begin, size_t end, std::string after) {
  Place p;
  p.begin = begin;
  p.end = end;
  p.before = std::string(contents.substr(begin, end - begin));
  p.satisfied = after == p.before;
  p.after = std::move(after);
  std::tie(p.line, p.column) = LineColumn(contents, begin);
  return p;
}

bool AllTrue(const std::vector<Tri>& verdicts) {
  return std::all_of(verdicts.begin(), verdicts.end(), [](Tri t) { return t == Tri::kTrue; });
}

bool Mentions(const cuda::Condition& condition, std::string_view macro) {
  return std::any_of(condition.nodes().begin(), condition.nodes().end(), [&](const cuda::ConditionNode& n) {
    return (n.kind == cuda::ConditionNode::Kind::kIdentifier || n.kind == cuda::ConditionNode::Kind::kDefined) &&
           n.name == macro;
  });
}

std::string NearMiss(const Finding& f, std::string_view why) {
  return fmt::format("{}:{}: {} '{}'{}{}", f.file, f.line, archpatch::gate::KindName(f.kind), f.text,
                     f.scope.empty() ? "" : fmt::format(" in '{}'", f.scope),
                     why.empty() ? "" : fmt::format(" ({})", why));
}

std::string TargetList(const std::vector<arch::Arch>& targets) {
  std::vector<std::string> names;
  for (const arch::Arch& a : targets) names.push_back(a.name());
  return fmt::format("{}", fmt::join(names, ", "));
}

// One #if/#elif gate the edit selected: satisfied when its own condition already holds for every
// target (enclosing conditions are not this edit's business), else widened.
Result<Place> WidenCudaGate(const Finding& f, const cuda::Condition& condition, const rules::CudaGate& gate,
                            std::string_view contents, const std::vector<arch::Arch>& targets) {
  const cuda::MacroEnv env;
  const std::string_view raw = contents.substr(f.span.begin, f.span.end - f.span.begin);
  if (AllTrue(cuda::EvaluatePerArch(condition, targets, env))) {
    Place p = MakePlace(contents, f.span.begin, f.span.end, std::string(raw));
    p.description = fmt::format("'{}' already holds for {}", f.text, TargetList(targets));
    return p;
  }
  Result<std::string> widened = cuda::WidenCondition(raw, gate.strategy, targets, env);
  if (!widened) {
    return Error{fmt::format("{}:{}:{}: cannot widen '{}' with {}: {}", f.file, f.line, f.column, f.text,
                             cuda::WidenStrategyName(gate.strategy), widened.error().message),
                 {}};
  }
  Place p = MakePlace(contents, f.span.begin, f.span.end, *widened);
  p.description = fmt::format("#{} '{}' -> '{}' ({} for {})", archpatch::gate::DirectiveName(f.directive()->directive),
                              f.text, *widened, cuda::WidenStrategyName(gate.strategy), TargetList(targets));
  return p;
}

}  // namespace

std::pair<int, int> LineColumn(std::string_view contents, size_t offset) {
  const size_t line_start = contents.rfind('\n', offset == 0 ? 0 : offset - 1);
  const int line = 1 + static_cast<int>(std::count(contents.begin(), contents.begin() + offset, '\n'));
  const size_t start = line_start == std::string_view::npos || offset == 0 ? 0 : line_start + 1;
  return {line, static_cast<int>(offset - start) + 1};
}

bool ScopeMatches(std::string_view actual, std::string_view wanted) {
  if (wanted.empty()) return true;
  if (actual == wanted) return true;
  if (actual.size() <= wanted.size() || !actual.ends_with(wanted)) return false;
  const std::string_view head = actual.substr(0, actual.size() - wanted.size());
  return head.ends_with(".") || head.ends_with("::");
}

bool ScopeInside(std::string_view actual, std::string_view wanted) {
  if (wanted.empty()) return true;
  for (std::string_view scope = actual; !scope.empty();) {
    if (ScopeMatches(scope, wanted)) return true;
    const size_t dot = scope.rfind('.');
    const size_t colons = scope.rfind("::");
    if (dot == std::string_view::npos && colons == std::string_view::npos) break;
    const size_t cut = dot == std::string_view::npos      ? colons
                       : colons == std::string_view::npos ? dot
                                                          : std::max(dot, colons);
    scope = scope.substr(0, cut);
  }
  return false;
}

Result<std::vector<std::string>> ScopesIn(const std::string& path, std::string_view contents) {
  std::vector<std::string> out;
  auto add = [&](std::string name) {
    if (!name.empty() && std::find(out.begin(), out.end(), name) == out.end()) out.push_back(std::move(name));
  };
  switch (scan::KindOf(path)) {
    case scan::FileKind::kPython: {
      Result<std::vector<python::Token>> tokens = python::Tokenize(path, contents);
      if (!tokens) return tokens.error();
      const python::TokenStream ts = python::MakeStream(contents, std::move(*tokens));
      for (const python::LogicalLine& line : python::SplitLines(ts)) {
        const std::vector<std::string>& names = line.scope.names();
        for (size_t n = 1; n <= names.size(); ++n) add(python::ScopeName({names.begin(), names.begin() + n}));
      }
      break;
    }
    case scan::FileKind::kCuda: {
      const std::vector<cuda::Token> tokens = cuda::Tokenize(contents);
      for (const cuda::FunctionBody& body : cuda::FindFunctionBodies(tokens, contents, /*scopes=*/true)) add(body.name);
      break;
    }
    case scan::FileKind::kOther: break;
  }
  return out;
}

const Result<std::vector<Finding>>& GateScans::Of(Form form, const std::string& path, std::string_view contents,
                                                  const std::vector<arch::Arch>& targets) {
  std::string arches;
  for (const arch::Arch& a : targets) arches += a.name() + ",";
  auto key = std::make_tuple(form, path, std::move(arches));
  auto it = scans_.find(key);
  if (it == scans_.end()) {
    it = scans_
             .emplace(std::move(key), form == Form::kCuda
                                          ? scan::ScanFileGates(path, contents, targets, cuda::MacroEnv{})
                                          : python::ScanPython(path, contents, targets))
             .first;
  }
  return it->second;
}

Result<FilePlaces> LocateCudaGates(const rules::CudaGate& gate, const std::string& path, std::string_view contents,
                                   const std::vector<arch::Arch>& targets, GateScans* scans) {
  GateScans once;
  const Result<std::vector<Finding>>& findings =
      (scans ? *scans : once).Of(GateScans::Form::kCuda, path, contents, targets);
  if (!findings) return findings.error();
  FilePlaces out;
  for (const Finding& f : *findings) {
    if (f.kind != archpatch::gate::Kind::kCudaGate) continue;
    const archpatch::gate::DirectiveForm* form = f.directive();
    if (!form || (form->directive != archpatch::gate::DirectiveKind::kIf &&
                  form->directive != archpatch::gate::DirectiveKind::kElif)) {
      if (f.text.find(gate.macro) != std::string::npos)
        out.near_misses.push_back(NearMiss(f, "not an #if/#elif condition"));
      continue;
    }
    Result<cuda::Condition> condition = cuda::ParseCondition(contents.substr(f.span.begin, f.span.end - f.span.begin));
    if (!condition || !Mentions(*condition, gate.macro)) continue;
    if (!ScopeInside(f.scope, gate.scope)) {
      out.near_misses.push_back(NearMiss(f, f.scope.empty() ? "outside every function" : "other scope"));
      continue;
    }
    Result<Place> place = WidenCudaGate(f, *condition, gate, contents, targets);
    if (!place) return place.error();
    out.places.push_back(std::move(*place));
  }
  return out;
}

Result<FilePlaces> LocatePythonGates(const rules::PythonGate& gate, const std::string& path, std::string_view contents,
                                     const std::vector<arch::Arch>& targets, GateScans* scans) {
  GateScans once;
  const Result<std::vector<Finding>>& findings =
      (scans ? *scans : once).Of(GateScans::Form::kPython, path, contents, targets);
  if (!findings) return findings.error();
  FilePlaces out;
  const python::AddMode mode =
      gate.add == rules::AddForm::kMajor ? python::AddMode::kMajor : python::AddMode::kCapability;
  for (const Finding& f : *findings) {
    if (f.kind != archpatch::gate::Kind::kPythonGate || !f.python()) continue;
    const std::string& name = f.python()->name;
    if (!ScopeMatches(f.scope, gate.scope) || (!gate.name.empty() && name != gate.name)) {
      out.near_misses.push_back(NearMiss(f, f.text.find(name) == std::string::npos ? "name '" + name + "'" : ""));
      continue;
    }
    std::vector<Tri> verdicts;
    for (const arch::Arch& a : targets) verdicts.push_back(f.VerdictFor(a.name()));
    std::string after = std::string(contents.substr(f.span.begin, f.span.end - f.span.begin));
    if (!AllTrue(verdicts)) {
      Result<std::string> widened = python::WidenLiteral(contents, f, targets, mode);
      if (!widened) {
        return Error{
            fmt::format("{}:{}:{}: cannot widen '{}': {}", path, f.line, f.column, f.text, widened.error().message),
            {}};
      }
      after = *widened;
    }
    Place p = MakePlace(contents, f.span.begin, f.span.end, after);
    p.description =
        p.satisfied ? fmt::format("'{}' already admits {}", f.text, TargetList(targets))
                    : fmt::format("{} '{}' -> '{}' in '{}'", name.empty() ? "gate" : name, p.before, p.after, f.scope);
    out.places.push_back(std::move(p));
  }
  return out;
}

}  // namespace archpatch::plan
