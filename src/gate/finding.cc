#include "gate/finding.h"

#include <algorithm>
#include <array>
#include <tuple>
#include <utility>

namespace archpatch::gate {
namespace {

constexpr std::array<std::pair<Kind, std::string_view>, 8> kKindNames = {{
    {Kind::kCudaGate, "cuda-gate"},
    {Kind::kCppRuntimeGate, "cpp-runtime-gate"},
    {Kind::kPythonGate, "python-gate"},
    {Kind::kEmptyKernel, "empty-kernel"},
    {Kind::kWidenUnsafe, "widen-unsafe"},
    {Kind::kWidenUnknown, "widen-unknown"},
    {Kind::kBinaryCoverage, "binary-coverage"},
    {Kind::kPrebuiltWithoutImage, "prebuilt-without-image"},
}};

}  // namespace

std::string_view KindName(Kind kind) {
  for (const auto& [k, name] : kKindNames) {
    if (k == kind) return name;
  }
  return "unknown";
}

std::optional<Kind> ParseKind(std::string_view name) {
  for (const auto& [k, n] : kKindNames) {
    if (n == name) return k;
  }
  return std::nullopt;
}

std::string_view SeverityName(Severity s) {
  switch (s) {
    case Severity::kInfo: return "info";
    case Severity::kWarning: return "warning";
    case Severity::kError: return "error";
  }
  return "warning";
}

std::string_view DirectionName(Direction d) {
  switch (d) {
    case Direction::kUnknown: return "unknown";
    case Direction::kRefuses: return "refuses";
    case Direction::kEnables: return "enables";
    case Direction::kFallback: return "fallback";
  }
  return "unknown";
}

std::string_view ExclusionClassName(ExclusionClass c) {
  switch (c) {
    case ExclusionClass::kRefusal: return "refusal";
    case ExclusionClass::kEmpty: return "empty";
    case ExclusionClass::kFastPath: return "fast-path";
    case ExclusionClass::kHardwareExclusive: return "hardware-exclusive";
    case ExclusionClass::kLegacy: return "legacy";
    case ExclusionClass::kOtherArch: return "other-arch";
  }
  return "other-arch";
}

ExclusionClass ExclusionClassFromName(std::string_view name) {
  for (ExclusionClass c : {ExclusionClass::kRefusal, ExclusionClass::kEmpty, ExclusionClass::kFastPath,
                           ExclusionClass::kHardwareExclusive, ExclusionClass::kLegacy}) {
    if (ExclusionClassName(c) == name) return c;
  }
  return ExclusionClass::kOtherArch;
}

bool KeepsTargetOut(ExclusionClass c) { return c != ExclusionClass::kLegacy && c != ExclusionClass::kOtherArch; }

std::string_view BlockHoldsName(BlockHolds holds) {
  switch (holds) {
    case BlockHolds::kNothing: return "nothing";
    case BlockHolds::kDefines: return "defines";
    case BlockHolds::kRefusal: return "refusal";
    case BlockHolds::kCode: return "code";
  }
  return "code";
}

std::string_view DirectiveName(DirectiveKind kind) {
  switch (kind) {
    case DirectiveKind::kIf: return "if";
    case DirectiveKind::kIfdef: return "ifdef";
    case DirectiveKind::kIfndef: return "ifndef";
    case DirectiveKind::kElif: return "elif";
    case DirectiveKind::kElifdef: return "elifdef";
    case DirectiveKind::kElifndef: return "elifndef";
    case DirectiveKind::kElse: return "else";
  }
  return "if";
}

std::string_view ArchesFromName(ArchesFrom from) {
  switch (from) {
    case ArchesFrom::kUnknown: return "unknown";
    case ArchesFrom::kCubinHeaders: return "cubin-headers";
    case ArchesFrom::kFileNames: return "file-names";
    case ArchesFrom::kDeclaredList: return "declared-list";
  }
  return "unknown";
}

std::string_view WidenSafetyName(WidenSafety s) {
  switch (s) {
    case WidenSafety::kSafe: return "widen-safe";
    case WidenSafety::kUnsafe: return "widen-unsafe";
    case WidenSafety::kUnknown: return "unknown";
  }
  return "unknown";
}

Tri VerdictOn(const Verdicts& verdicts, std::string_view arch) {
  for (const ArchVerdict& v : verdicts) {
    if (v.arch == arch) return v.value;
  }
  return Tri::kUnknown;
}

// Their places are sorted, then each finding moved once: a Finding is 1.4 KB, and sorting the
// findings themselves moved each about log n times (an audit's 2,685: 7 ms on one thread).
void SortFindings(std::vector<Finding>& findings) { findings = SortedFindings({&findings}); }

std::vector<Finding> SortedFindings(const std::vector<std::vector<Finding>*>& parts) {
  // Files ranked once, then the places sorted by numbers: the paths (long, with long common
  // prefixes) are not compared again at every step of the sort.
  struct Key {
    size_t file;  // rank of the path
    int line, column;
    Finding* finding;
  };
  std::vector<std::string_view> paths;
  for (std::vector<Finding>* part : parts) {
    for (const Finding& f : *part) {
      if (paths.empty() || paths.back() != f.file) paths.push_back(f.file);  // a file's are mostly together
    }
  }
  std::sort(paths.begin(), paths.end());
  paths.erase(std::unique(paths.begin(), paths.end()), paths.end());
  std::vector<Key> order;
  for (std::vector<Finding>* part : parts) {
    const std::string* last = nullptr;
    size_t rank = 0;
    for (Finding& f : *part) {
      if (!last || f.file != *last) {
        last = &f.file;
        rank = std::lower_bound(paths.begin(), paths.end(), std::string_view(*last)) - paths.begin();
      }
      order.push_back({rank, f.line, f.column, &f});
    }
  }
  std::stable_sort(order.begin(), order.end(), [](const Key& x, const Key& y) {
    return std::tie(x.file, x.line, x.column) < std::tie(y.file, y.line, y.column);
  });
  std::vector<Finding> sorted;
  sorted.reserve(order.size());
  for (const Key& k : order) sorted.push_back(std::move(*k.finding));
  return sorted;
}

}  // namespace archpatch::gate
