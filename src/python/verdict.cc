#include "python/verdict.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace archpatch::python {
namespace {

// -1, 0, 1: how the target's value compares with a literal of the operand's kind.
std::optional<int> Order(Operand operand, const Literal& lit, const arch::Arch& t) {
  auto cmp = [](long long a, long long b) { return a < b ? -1 : a > b ? 1 : 0; };
  switch (operand) {
    case Operand::kMajor:
      if (lit.kind == LiteralKind::kInt) return cmp(t.major, lit.number);
      break;
    case Operand::kMinor:
      if (lit.kind == LiteralKind::kInt) return cmp(t.minor, lit.number);
      break;
    case Operand::kComputeCapability:
      if (lit.kind == LiteralKind::kInt) return cmp(t.number(), lit.number);
      break;
    case Operand::kCapability:
      if (lit.kind == LiteralKind::kTuple && lit.items.size() == 2 && lit.items[0].kind == LiteralKind::kInt &&
          lit.items[1].kind == LiteralKind::kInt) {
        const int first = cmp(t.major, lit.items[0].number);
        return first != 0 ? first : cmp(t.minor, lit.items[1].number);
      }
      break;
    case Operand::kArchName:
      if (lit.kind == LiteralKind::kString) {
        if (std::optional<ArchName> name = arch::ReadArchName(lit.text)) return cmp(t.number(), name->arch.number());
      }
      break;
  }
  return std::nullopt;
}

}  // namespace

std::string_view OperandName(Operand o) {
  switch (o) {
    case Operand::kMajor: return "major";
    case Operand::kMinor: return "minor";
    case Operand::kCapability: return "capability";
    case Operand::kComputeCapability: return "compute_capability";
    case Operand::kArchName: return "arch_name";
  }
  return "major";
}

std::optional<Compare> CompareFromText(std::string_view op) {
  if (op == "==") return Compare::kEq;
  if (op == "!=") return Compare::kNe;
  if (op == "<") return Compare::kLt;
  if (op == "<=") return Compare::kLe;
  if (op == ">") return Compare::kGt;
  if (op == ">=") return Compare::kGe;
  if (op == "in") return Compare::kIn;
  if (op == "not in") return Compare::kNotIn;
  return std::nullopt;
}

std::string_view CompareText(Compare c) {
  constexpr std::string_view kText[] = {"==", "!=", "<", "<=", ">", ">=", "in", "not in"};
  return kText[static_cast<int>(c)];
}

Compare Flip(Compare c) {
  switch (c) {
    case Compare::kLt: return Compare::kGt;
    case Compare::kLe: return Compare::kGe;
    case Compare::kGt: return Compare::kLt;
    case Compare::kGe: return Compare::kLe;
    default: return c;
  }
}

std::optional<std::vector<ArchName>> ParseArchListString(std::string_view text) {
  std::vector<ArchName> names;
  size_t i = 0;
  while (i < text.size()) {
    const size_t end = text.find_first_of(" ;,\t", i);
    const std::string_view item = text.substr(i, end == std::string_view::npos ? text.npos : end - i);
    if (!item.empty()) {
      std::optional<ArchName> name = arch::ReadArchName(item);
      if (!name) return std::nullopt;
      names.push_back(*name);
    }
    if (end == std::string_view::npos) break;
    i = end + 1;
  }
  if (names.empty()) return std::nullopt;
  return names;
}

std::vector<ArchName> NvccArchTargets(std::string_view text) {
  std::vector<ArchName> out;
  constexpr std::string_view kKeys[] = {"code=", "-arch=", "--gpu-architecture=", "--gpu-code="};
  for (std::string_view key : kKeys) {
    for (size_t at = text.find(key); at != std::string_view::npos; at = text.find(key, at + 1)) {
      if (key == "code=" && at > 0 && text[at - 1] == '-') continue;  // "-code=" is handled as code=
      size_t i = at + key.size();
      const size_t end = text.find_first_of(" \t", i);
      std::string_view value = text.substr(i, end == std::string_view::npos ? text.npos : end - i);
      while (!value.empty()) {
        const size_t sep = value.find_first_of(",[]");
        const std::string_view item = value.substr(0, sep);
        if (item.substr(0, 3) == "sm_" || item.substr(0, 8) == "compute_") {
          if (std::optional<ArchName> name = arch::ReadArchName(item)) out.push_back(*name);
        }
        if (sep == std::string_view::npos) break;
        value.remove_prefix(sep + 1);
      }
    }
  }
  return out;
}

bool ScalarMatches(Operand operand, const Literal& item, const arch::Arch& t, Tri& out) {
  if (item.kind == LiteralKind::kOpaque) return out = Tri::kUnknown, true;
  if (operand == Operand::kArchName) {
    if (item.kind != LiteralKind::kString) return false;
    std::optional<ArchName> name = arch::ReadArchName(item.text);
    out = TriOf(name && arch::NameMeans(*name, t));
    return true;
  }
  std::optional<int> order = Order(operand, item, t);
  if (!order) return false;
  out = TriOf(*order == 0);
  return true;
}

Tri Evaluate(Operand operand, Compare op, const Literal& lit, const arch::Arch& t) {
  Tri result = Tri::kUnknown;
  switch (op) {
    case Compare::kIn:
    case Compare::kNotIn: {
      if (!lit.IsCollection()) return Tri::kUnknown;
      result = Tri::kFalse;
      for (const Literal& item : lit.items) {
        Tri m = Tri::kUnknown;
        if (!ScalarMatches(operand, item, t, m)) m = Tri::kUnknown;
        result = TriOr(result, m);
      }
      return op == Compare::kIn ? result : TriNot(result);
    }
    case Compare::kEq:
    case Compare::kNe:
      if (!ScalarMatches(operand, lit, t, result)) return Tri::kUnknown;
      return op == Compare::kEq ? result : TriNot(result);
    default: break;
  }
  std::optional<int> order = Order(operand, lit, t);
  if (!order) return Tri::kUnknown;
  switch (op) {
    case Compare::kLt: return TriOf(*order < 0);
    case Compare::kLe: return TriOf(*order <= 0);
    case Compare::kGt: return TriOf(*order > 0);
    case Compare::kGe: return TriOf(*order >= 0);
    default: return Tri::kUnknown;
  }
}

std::string JoinedArchNames(const std::vector<arch::Arch>& arches, const std::vector<Tri>& values, Tri which) {
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
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace archpatch::python
