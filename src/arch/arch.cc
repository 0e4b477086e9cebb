#include "arch/arch.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include <fmt/format.h>

#include "util/identifier.h"

namespace archpatch::arch {
namespace {

// The numbers `nvcc --list-gpu-code` prints for nvcc 13.0, and which of them also have an
// arch-specific (a) and a family-specific (f) target. sm_90 has an `a` but no `f` variant.
struct TableRow {
  int number;
  bool has_a;
  bool has_f;
};
constexpr TableRow kTable[] = {
    {75, false, false}, {80, false, false}, {86, false, false}, {87, false, false},
    {88, false, false}, {89, false, false}, {90, true, false},  {100, true, true},
    {103, true, true},  {110, true, true},  {120, true, true},  {121, true, true},
};

std::vector<Arch> BuildTable() {
  std::vector<Arch> arches;
  for (const TableRow& row : kTable) {
    const int major = row.number / 10, minor = row.number % 10;
    arches.push_back({major, minor, Variant::kPlain});
    if (row.has_a) arches.push_back({major, minor, Variant::kArchSpecific});
    if (row.has_f) arches.push_back({major, minor, Variant::kFamily});
  }
  return arches;
}

std::string Lower(std::string_view text) {
  std::string out;
  for (char c : text) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool ConsumePrefix(std::string_view& text, std::string_view prefix) {
  if (text.substr(0, prefix.size()) != prefix) return false;
  text.remove_prefix(prefix.size());
  return true;
}

// Splits "120a" / "12.0a" into a number and a variant; returns false on anything else.
bool ParseNumberAndVariant(std::string_view text, int& number, Variant& variant) {
  variant = Variant::kPlain;
  if (!text.empty() && (text.back() == 'a' || text.back() == 'f')) {
    variant = text.back() == 'a' ? Variant::kArchSpecific : Variant::kFamily;
    text.remove_suffix(1);
  }
  if (text.empty()) return false;
  const size_t dot = text.find('.');
  if (dot != std::string_view::npos) {
    int major = 0, minor = 0;
    std::string_view left = text.substr(0, dot), right = text.substr(dot + 1);
    // At most three digits of major: "429496849.6" would overflow major * 10 (issue 16, item 15).
    if (left.empty() || left.size() > 3 || right.size() != 1) return false;
    auto [p1, e1] = std::from_chars(left.data(), left.data() + left.size(), major);
    auto [p2, e2] = std::from_chars(right.data(), right.data() + right.size(), minor);
    if (e1 != std::errc() || e2 != std::errc() || p1 != left.end() || p2 != right.end()) return false;
    number = major * 10 + minor;
    return true;
  }
  // At most three digits ("120"): a longer run is no arch, and cannot overflow.
  if (text.size() > 3) return false;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), number);
  return ec == std::errc() && ptr == text.data() + text.size();
}

// The spelling alone, any number: prefixes sm_, sm, compute_ (PTX), suffix +ptx (PTX).
std::optional<ArchName> LexArchName(std::string_view text) {
  ArchName out;
  if (text.ends_with("+ptx")) {
    out.ptx = true;
    text.remove_suffix(4);
  }
  if (ConsumePrefix(text, "compute_"))
    out.ptx = true;
  else if (!ConsumePrefix(text, "sm_"))
    ConsumePrefix(text, "sm");
  int number = 0;
  if (!ParseNumberAndVariant(text, number, out.arch.variant) || number < 0) return std::nullopt;
  out.arch.major = number / 10;
  out.arch.minor = number % 10;
  return out;
}

std::string KnownList() {
  std::string out;
  for (const Arch& a : AllArches()) out += (out.empty() ? "" : ", ") + a.name();
  return out;
}

}  // namespace

// Made for every verdict of every finding: built by hand, not through fmt (the string fits in
// its inline buffer).
std::string Arch::name() const {
  std::string out = "sm_" + std::to_string(number());
  if (variant == Variant::kArchSpecific) out += 'a';
  if (variant == Variant::kFamily) out += 'f';
  return out;
}

std::string Arch::compute_name() const { return "compute_" + name().substr(3); }

const std::vector<Arch>& AllArches() {
  static const std::vector<Arch> table = BuildTable();
  return table;
}

bool IsKnown(const Arch& arch) {
  const auto& table = AllArches();
  return std::find(table.begin(), table.end(), arch) != table.end();
}

Result<Arch> ParseArch(std::string_view input) {
  const std::string text = Lower(input);
  std::optional<ArchName> name = LexArchName(text);
  if (!name || text.ends_with("+ptx")) {
    return Error{fmt::format("'{}' is not an arch name (try sm_120, sm_120a, 12.0 or 120)", input), {}};
  }
  if (!IsKnown(name->arch)) {
    return Error{fmt::format("unknown arch '{}': nvcc 13 knows {}", input, KnownList()), {}};
  }
  return name->arch;
}

std::optional<ArchName> ReadArchName(std::string_view input) {
  std::optional<ArchName> name = LexArchName(Lower(input));
  if (!name || name->arch.major < 2 || name->arch.major > 19) return std::nullopt;
  return name;
}

bool NameMeans(const ArchName& name, const Arch& device) {
  if (name.ptx) return PtxJitsOn(name.arch, device);
  if (name.arch.variant == Variant::kFamily) return SassRunsOn(name.arch, device);
  return name.arch.major == device.major && name.arch.minor == device.minor;
}

std::string ArchName::text() const { return ptx ? arch.compute_name() : arch.name(); }

Result<std::vector<Arch>> ParseArchList(std::string_view text) {
  std::vector<Arch> arches;
  while (!text.empty()) {
    const size_t comma = text.find(',');
    std::string_view item = text.substr(0, comma);
    if (!item.empty()) {
      Result<Arch> arch = ParseArch(item);
      if (!arch) return arch.error();
      arches.push_back(*arch);
    }
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  if (arches.empty()) return Error{"empty arch list", {}};
  return arches;
}

std::string_view ArchSpecificMacroIn(std::string_view text) {
  std::string_view found;
  ForEachIdentifier(text, [&](std::string_view word, size_t) {
    if (word.starts_with("__CUDA_ARCH_FEAT_") || word == "__CUDA_ARCH_SPECIFIC__" ||
        word == "__CUDA_ARCH_FAMILY_SPECIFIC__") {
      found = word;
    }
    return !found.empty();
  });
  return found;
}

std::vector<Macro> DeviceMacros(const Arch& arch) {
  const std::string value = std::to_string(arch.cuda_arch());
  std::vector<Macro> macros = {
      {"__CUDA_ARCH__", value},
      {"__CUDA_ARCH_LIST__", value},
  };
  if (arch.variant != Variant::kPlain) macros.push_back({"__CUDA_ARCH_FAMILY_SPECIFIC__", value});
  if (arch.variant == Variant::kArchSpecific) {
    macros.push_back({"__CUDA_ARCH_SPECIFIC__", value});
    macros.push_back({fmt::format("__CUDA_ARCH_FEAT_SM{}_ALL", arch.number()), ""});
  }
  // The compiler identity of nvcc 13.0, defined in every pass, and CUDA_DOUBLE_MATH_FUNCTIONS,
  // which nvcc adds to device passes only.
  const Macro compiler[] = {
      {"CUDA_DOUBLE_MATH_FUNCTIONS", ""},
      {"__CUDACC__", ""},
      {"__NVCC__", ""},
      {"__CUDACC_VER_MAJOR__", "13"},
      {"__CUDACC_VER_MINOR__", "0"},
      {"__CUDACC_VER_BUILD__", "88"},
      {"__CUDA_API_VER_MAJOR__", "13"},
      {"__CUDA_API_VER_MINOR__", "0"},
      {"__CUDACC_DEVICE_ATOMIC_BUILTINS__", "1"},
      {"__NVCC_DIAG_PRAGMA_SUPPORT__", "1"},
  };
  macros.insert(macros.end(), std::begin(compiler), std::end(compiler));
  return macros;
}

// CUDA C++ Programming Guide, "Binary Compatibility" and "Feature Availability": a cubin for
// sm_XY runs on sm_XZ with Z >= Y (same major); an `a` cubin only on exactly that chip; an `f`
// cubin on any chip of the same family (same major, equal or higher minor).
bool SassRunsOn(const Arch& image, const Arch& device) {
  if (image.major != device.major) return false;
  switch (image.variant) {
    case Variant::kArchSpecific: return image.minor == device.minor;
    case Variant::kFamily:
    case Variant::kPlain: return device.minor >= image.minor;
  }
  return false;
}

// CUDA C++ Programming Guide, "PTX Compatibility" (1.3.4 in the 13.x guide) and "Feature
// Availability" (5.1.2): PTX for compute_XY is JIT-compiled by the driver for any GPU of compute
// capability X.Y or higher, across majors; compute_XYa PTX (arch-specific features) only for
// exactly X.Y; compute_XYf PTX (family-specific features) for the family: same major, equal or
// higher minor (compute_100f on 10.0 and 10.3, compute_120f on 12.0 and 12.1).
bool PtxJitsOn(const Arch& ptx, const Arch& device) {
  switch (ptx.variant) {
    case Variant::kArchSpecific: return ptx.major == device.major && ptx.minor == device.minor;
    case Variant::kFamily: return ptx.major == device.major && device.minor >= ptx.minor;
    case Variant::kPlain: return device.number() >= ptx.number();
  }
  return false;
}

}  // namespace archpatch::arch
