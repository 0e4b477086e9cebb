// Literal replacements, anchored by a scope: where a scope's bytes are, for Python (def/class,
// nested code included) and C/C++ (a function body), and the occurrences of `old` in them.
#include <algorithm>

#include <fmt/format.h>

#include "cuda/functions.h"
#include "cuda/tokens.h"
#include "plan/locate.h"
#include "python/syntax.h"
#include "python/tokenizer.h"
#include "scan/scan.h"

namespace archpatch::plan {
namespace {

struct Range {
  size_t begin = 0, end = 0;
};

// Whether the def/class chain `scope`, or one of its enclosing chains, is the wanted scope.
bool InsidePythonScope(const python::Scope& scope, std::string_view wanted) {
  return !scope.empty() && ScopeInside(python::ScopeName(scope), wanted);
}

Result<std::vector<Range>> PythonScopeRanges(const std::string& path, std::string_view contents,
                                             std::string_view wanted) {
  Result<std::vector<python::Token>> tokens = python::Tokenize(path, contents);
  if (!tokens) return tokens.error();
  const python::TokenStream ts = python::MakeStream(contents, std::move(*tokens));
  std::vector<Range> ranges;
  bool previous_inside = false;
  for (const python::LogicalLine& line : python::SplitLines(ts)) {
    if (line.first >= line.last) continue;
    const bool inside = InsidePythonScope(line.scope, wanted);
    const Range r{ts.tokens[line.first].begin, ts.tokens[line.last - 1].end};
    if (inside && previous_inside) {
      ranges.back().end = r.end;  // consecutive lines of one scope: one range, comments included
    } else if (inside) {
      ranges.push_back(r);
    }
    previous_inside = inside;
  }
  return ranges;
}

std::vector<Range> FunctionRanges(std::string_view contents, std::string_view wanted) {
  const std::vector<cuda::Token> tokens = cuda::Tokenize(contents);
  std::vector<Range> ranges;
  for (const cuda::FunctionBody& body : cuda::FindFunctionBodies(tokens, contents, /*scopes=*/true)) {
    if (!ScopeMatches(body.name, wanted)) continue;
    // Outer bodies come first; an inner body of the same name lies inside one already taken.
    if (!ranges.empty() && body.begin < ranges.back().end) continue;
    ranges.push_back({body.begin, body.end});
  }
  return ranges;
}

Result<std::vector<Range>> ScopeRanges(const rules::Replace& replace, const std::string& path,
                                       std::string_view contents) {
  if (replace.scope.empty()) return std::vector<Range>{{0, contents.size()}};
  switch (scan::KindOf(path)) {
    case scan::FileKind::kPython: return PythonScopeRanges(path, contents, replace.scope);
    case scan::FileKind::kCuda: return FunctionRanges(contents, replace.scope);
    case scan::FileKind::kOther: break;
  }
  return Error{fmt::format("{}: 'scope' needs a Python or C/C++ file (drop it to search the whole file)", path), {}};
}

std::vector<Range> Occurrences(std::string_view contents, const Range& within, std::string_view needle) {
  std::vector<Range> found;
  if (needle.empty()) return found;
  const std::string_view text = contents.substr(within.begin, within.end - within.begin);
  for (size_t at = text.find(needle); at != std::string_view::npos; at = text.find(needle, at + needle.size())) {
    found.push_back({within.begin + at, within.begin + at + needle.size()});
  }
  return found;
}

bool Overlaps(const Range& a, const std::vector<Range>& others) {
  return std::any_of(others.begin(), others.end(), [&](const Range& b) { return a.begin < b.end && b.begin < a.end; });
}

}  // namespace

Result<FilePlaces> LocateReplacements(const rules::Replace& replace, const std::string& path,
                                      std::string_view contents) {
  Result<std::vector<Range>> ranges = ScopeRanges(replace, path, contents);
  if (!ranges) return ranges.error();
  FilePlaces out;
  if (ranges->empty()) {
    out.near_misses.push_back(fmt::format("{}: no scope '{}'", path, replace.scope));
    return out;
  }
  for (const Range& range : *ranges) {
    // Text already replaced counts as satisfied, and the `old` inside it (new often extends old)
    // is not matched again.
    const std::vector<Range> done = Occurrences(contents, range, replace.new_text);
    std::vector<Range> places = done;
    for (const Range& r : Occurrences(contents, range, replace.old_text)) {
      if (!Overlaps(r, done)) places.push_back(r);
    }
    for (const Range& r : places) {
      const bool satisfied = Overlaps(r, done);
      Place p;
      p.begin = r.begin;
      p.end = r.end;
      p.before = std::string(contents.substr(r.begin, r.end - r.begin));
      p.after = satisfied ? p.before : replace.new_text;
      p.satisfied = satisfied;
      std::tie(p.line, p.column) = LineColumn(contents, r.begin);
      p.description = satisfied ? fmt::format("'{}' is already there", replace.new_text)
                                : fmt::format("replace '{}' with '{}'", replace.old_text, replace.new_text);
      out.places.push_back(std::move(p));
    }
  }
  std::sort(out.places.begin(), out.places.end(), [](const Place& a, const Place& b) { return a.begin < b.begin; });
  return out;
}

}  // namespace archpatch::plan
