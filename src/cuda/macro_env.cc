#include "cuda/macro_env.h"

#include <algorithm>
#include <cctype>
#include <memory>
#include <set>

#include <fmt/format.h>

#include "util/identifier.h"

namespace archpatch::cuda {
namespace {

// The driver defines a bare -DNAME as 1; nvcc's dry run lists FEAT macros that way.
std::string DriverValue(const std::string& value) { return value.empty() ? "1" : value; }

// -D/-U first, then `pass` (the macros of the pass itself), then unknown or undefined. In a
// known pass (`complete_arch`), an __CUDA_ARCH* name the pass lacks is undefined: nvcc defines
// exactly the table's macros.
// Lookups run for every identifier of every condition per arch: the pass maps are built once and
// shared, a std::string key is made only when -D/-U flags exist, and `env` is read in place (a
// copy per file and arch copied the package's per-arch macros, thousands of entries on CUTLASS).
using PassMap = std::map<std::string, std::string, std::less<>>;

MacroLookup Layered(const PassMap* pass, const MacroEnv& env, bool complete_arch) {
  const bool has_flags = !env.defines.empty() || !env.undefs.empty();
  return [pass, &env, has_flags, complete_arch](std::string_view name) -> MacroValue {
    if (has_flags) {
      const std::string key(name);
      if (auto it = env.defines.find(key); it != env.defines.end()) return MacroValue::Defined(it->second);
      if (env.undefs.count(key)) return MacroValue::Undefined();
    }
    if (auto it = pass->find(name); it != pass->end()) return MacroValue::Defined(it->second);
    if (complete_arch && name.substr(0, 11) == "__CUDA_ARCH") return MacroValue::Undefined();
    return env.undef_unknown ? MacroValue::Undefined() : MacroValue::Unknown();
  };
}

// Defined in every nvcc 13.0 pass beside the -D flags: by the forced `-include cuda_runtime.h`
// (CUDART_VERSION) and by the host compiler in nvcc's default C++17 mode (__cplusplus). Gates
// test both; CUDA_VERSION (cuda.h) is not included and stays unknown/undefined.
constexpr std::pair<const char*, const char*> kNvccImplicitMacros[] = {
    {"CUDART_VERSION", "13000"},
    {"__cplusplus", "201703L"},
};

PassMap MacroMap(const std::vector<arch::Macro>& macros, bool arch_macros) {
  PassMap out(std::begin(kNvccImplicitMacros), std::end(kNvccImplicitMacros));
  for (const arch::Macro& m : macros) {
    const bool is_arch = m.name.rfind("__CUDA_ARCH", 0) == 0;
    if (is_arch && !arch_macros) continue;
    out[m.name] = DriverValue(m.value);
  }
  return out;
}

// The pass maps of every arch of the table, in table order, and of the host pass.
struct PassTable {
  std::vector<PassMap> device;
  PassMap host;
};

const PassTable& Passes() {
  static const PassTable table = [] {
    PassTable t;
    for (const arch::Arch& a : arch::AllArches()) t.device.push_back(MacroMap(arch::DeviceMacros(a), true));
    t.host = MacroMap(arch::DeviceMacros(arch::AllArches().front()), false);
    return t;
  }();
  return table;
}

}  // namespace

Status AddMacroFlag(MacroEnv& env, std::string_view flag_value, bool define) {
  const size_t eq = flag_value.find('=');
  const std::string name(flag_value.substr(0, eq));
  if (!IsIdentifier(name)) {
    return Error{fmt::format("'{}' is not a macro name", name), {}};
  }
  if (!define && eq != std::string_view::npos) {
    return Error{fmt::format("-U takes a macro name without a value, not '{}'", flag_value), {}};
  }
  env.defines.erase(name);
  env.undefs.erase(name);
  if (define) {
    env.defines[name] = eq == std::string_view::npos ? "1" : std::string(flag_value.substr(eq + 1));
  } else {
    env.undefs.insert(name);
  }
  return Ok{};
}

namespace {

// Whether -D or -U names the macro (no key string is made when there are no flags at all).
bool Flagged(const MacroEnv& env, std::string_view macro) {
  if (env.defines.empty() && env.undefs.empty()) return false;
  const std::string key(macro);
  return env.defines.count(key) > 0 || env.undefs.count(key) > 0;
}

// The package's per-arch feature macros under -D/-U: `inner` answers for everything else.
MacroLookup WithPackageMacros(const arch::Arch& arch, const MacroEnv& env, MacroLookup inner,
                              const MacroNames* hidden = nullptr) {
  if (env.per_arch.empty()) return inner;
  return [&env, hidden, name = arch.name(), inner = std::move(inner)](std::string_view macro) {
    auto it = env.per_arch.find(macro);
    if (it == env.per_arch.end() || (hidden && hidden->count(macro)) || Flagged(env, macro)) {
      return inner(macro);
    }
    auto state = it->second.find(name);
    if (state == it->second.end() || state->second == Tri::kUnknown) return MacroValue::Unknown();
    return state->second == Tri::kTrue ? MacroValue::Defined("1") : MacroValue::Undefined();
  };
}

MacroLookup TableLookup(const arch::Arch& arch, const MacroEnv& env) {
  const auto& table = arch::AllArches();
  const auto it = std::find(table.begin(), table.end(), arch);
  if (it != table.end()) return Layered(&Passes().device[it - table.begin()], env, true);
  // An arch outside the table (not reachable through ParseArch): build its pass once per call.
  auto pass = std::make_shared<PassMap>(MacroMap(arch::DeviceMacros(arch), true));
  MacroLookup inner = Layered(pass.get(), env, true);
  return [pass, inner](std::string_view name) { return inner(name); };
}

}  // namespace

MacroLookup ArchLookup(const arch::Arch& arch, const MacroEnv& env) {
  return WithPackageMacros(arch, env, TableLookup(arch, env));
}

namespace {

// Whether a macro's value names another macro, which may read otherwise per arch (-D
// MYARCH=__CUDA_ARCH__): such a value is taken to vary.
bool NamesAMacro(std::string_view value) {
  bool named = false;
  ForEachIdentifier(value, [&](std::string_view, size_t) { return named = true; });
  return named;
}

}  // namespace

bool VariesByArch(std::string_view name, const MacroEnv& env) {
  // The names some device pass lacks, defines otherwise than the first, or defines as a name.
  static const std::set<std::string, std::less<>> kVarying = [] {
    std::set<std::string, std::less<>> varying;
    const std::vector<PassMap>& passes = Passes().device;
    const PassMap& first = passes.front();
    for (const PassMap& pass : passes) {
      for (const auto& [macro, value] : pass) {
        const auto in_first = first.find(macro);
        if (in_first == first.end() || in_first->second != value || NamesAMacro(value)) varying.insert(macro);
      }
      for (const auto& [macro, value] : first) {
        if (!pass.count(macro)) varying.insert(macro);
      }
    }
    return varying;
  }();
  if (name.starts_with("__CUDA_ARCH") || kVarying.count(name) > 0 || env.per_arch.count(name) > 0) return true;
  if (env.defines.empty()) return false;
  const auto flag = env.defines.find(std::string(name));
  return flag != env.defines.end() && NamesAMacro(flag->second);
}

MacroLookup ArchLookup(const arch::Arch& arch, const MacroEnv& env, const MacroNames& hidden) {
  return WithPackageMacros(arch, env, TableLookup(arch, env), &hidden);
}

MacroLookup HostLookup(const MacroEnv& env) {
  // Any arch gives the same compiler-version macros; the arch ones are left out.
  return Layered(&Passes().host, env, true);
}

MacroLookup EnvLookup(const MacroEnv& env) {
  static const PassMap kEmpty;
  return Layered(&kEmpty, env, false);
}

bool IsCompilerMacro(std::string_view name) {
  return name == "defined" || name.starts_with("__CUDA") || name.starts_with("__NV") || name == "__cplusplus" ||
         name.starts_with("__CUDACC");
}

}  // namespace archpatch::cuda
