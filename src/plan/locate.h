// Locating one rule edit's places in one file: the gates (or literal text) it selects, each with
// the replacement that admits the targets, or marked satisfied when it already does.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "arch/arch.h"
#include "gate/finding.h"
#include "rules/rule.h"
#include "util/result.h"

namespace archpatch::plan {

struct Place {
  size_t begin = 0;  // bytes [begin, end) of the file to replace
  size_t end = 0;
  std::string before;
  std::string after;  // == before when satisfied
  int line = 0;
  int column = 0;
  bool satisfied = false;
  std::string description;
};

struct FilePlaces {
  std::vector<Place> places;             // sorted by begin
  std::vector<std::string> near_misses;  // what the file has that the edit did not select
};

// The gate scans the locators read, kept per file, form and targets for a caller that locates
// several edits in bytes that do not change between them (rule coverage over an audit: five
// shipped edits select gates of flashinfer/gemm/gemm_base.py, each one scanned it). Not for a
// plan, where an edit may see the bytes of the one before it.
class GateScans {
 public:
  enum class Form { kCuda, kPython };
  const Result<std::vector<Finding>>& Of(Form form, const std::string& path, std::string_view contents,
                                         const std::vector<arch::Arch>& targets);

 private:
  std::map<std::tuple<Form, std::string, std::string>, Result<std::vector<Finding>>> scans_;
};

// `path` is root-relative (for messages); `contents` the file's bytes; `scans`, when given, the
// scans of earlier calls on the same bytes.
Result<FilePlaces> LocateCudaGates(const rules::CudaGate& gate, const std::string& path, std::string_view contents,
                                   const std::vector<arch::Arch>& targets, GateScans* scans = nullptr);
Result<FilePlaces> LocatePythonGates(const rules::PythonGate& gate, const std::string& path, std::string_view contents,
                                     const std::vector<arch::Arch>& targets, GateScans* scans = nullptr);
// `old` inside the scope's byte ranges: a Python def/class (nested code included) or a C/C++
// function body, the whole file without a scope. An occurrence of `new` counts as satisfied.
Result<FilePlaces> LocateReplacements(const rules::Replace& replace, const std::string& path,
                                      std::string_view contents);

// 1-based line and byte column of a byte offset.
std::pair<int, int> LineColumn(std::string_view contents, size_t offset);

// Scope suffix match on '.' (Python) and '::' (C++) boundaries: "B.f" matches "A.B.f".
bool ScopeMatches(std::string_view actual, std::string_view wanted);

// Whether `actual` lies inside `wanted`: ScopeMatches on `actual` or on one of its enclosing
// scopes ("Runner" covers "Runner.check_support", "run" covers the lambda "Gemm::run::pick").
bool ScopeInside(std::string_view actual, std::string_view wanted);

// Every scope a selector can name in the file, in file order without repeats: Python def/class
// chains ("Builder", "Builder.gen"), C/C++ function bodies with their classes, operators and
// lambdas ("Gemm::operator()", "run::pick"). For the message of an edit that selects nothing.
Result<std::vector<std::string>> ScopesIn(const std::string& path, std::string_view contents);

}  // namespace archpatch::plan
