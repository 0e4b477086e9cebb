// MacroEnv: what the user fixed about macros (-D NAME[=VAL], -U NAME, --undef-unknown), and
// MacroLookup: how the condition evaluator learns a macro's state for one preprocessing pass.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>

#include "arch/arch.h"
#include "util/result.h"
#include "util/tri.h"

namespace archpatch::cuda {

// A macro's state in one pass. kUnknown: archpatch cannot know it (an unlisted project macro);
// the evaluator then yields Tri::kUnknown wherever the value matters.
struct MacroValue {
  enum class State { kUndefined, kDefined, kUnknown };
  State state = State::kUnknown;
  std::string replacement;  // object-like replacement text when kDefined ("1" for a bare -DNAME)

  static MacroValue Undefined() { return {State::kUndefined, ""}; }
  static MacroValue Unknown() { return {State::kUnknown, ""}; }
  static MacroValue Defined(std::string replacement) { return {State::kDefined, std::move(replacement)}; }
};

using MacroLookup = std::function<MacroValue(std::string_view name)>;

// The -D/-U/--undef-unknown options, as unifdef and the compiler read them.
struct MacroEnv {
  std::map<std::string, std::string> defines;  // -D NAME[=VAL]; a bare -D NAME stores "1"
  std::set<std::string> undefs;                // -U NAME
  bool undef_unknown = false;                  // every macro not listed is undefined
  // Feature macros other files of the package #define under arch-dependent branches (CUTLASS's
  // CUTE_ARCH_TCGEN05_* in cute/arch/config.hpp), by macro then arch name: defined where true,
  // undefined where false. -D/-U win; a file's own #define wins after it (scan/package_macros.h).
  std::map<std::string, std::map<std::string, Tri>, std::less<>> per_arch;
};

// Parses the value of one -D ("NAME", "NAME=VAL", "NAME=") or -U ("NAME") option into `env`.
// A later flag for the same name replaces an earlier one, as on a compiler command line.
// Errors say what is wrong with the name ("'1X' is not a macro name").
Status AddMacroFlag(MacroEnv& env, std::string_view flag_value, bool define);

// Names the compiler defines per pass (__CUDA_ARCH__, __CUDA_ARCH_FEAT_SM90_ALL, __CUDACC__,
// __NVCC__, __cplusplus, `defined`): a gate's arch dependence, never a package's feature macro.
bool IsCompilerMacro(std::string_view name);

// The macros of one device pass for `arch` (arch::DeviceMacros, plus CUDART_VERSION and
// __cplusplus, which nvcc's forced include and host compiler define), overridden by `env`; every other
// macro is unknown, or undefined with env.undef_unknown; an __CUDA_ARCH* macro the pass does not
// define is undefined (nvcc defines exactly the table's). A macro nvcc passes bare (-DNAME) reads
// as "1", as the compiler driver defines it. The lookup reads `env`, which must outlive it (as
// for HostLookup and EnvLookup).
MacroLookup ArchLookup(const arch::Arch& arch, const MacroEnv& env);

// Whether ArchLookup may answer for `name` differently on two arches of arch::AllArches() with the
// same `env`: an __CUDA_ARCH* name, one the table's passes define differently, a package's
// per-arch macro, or a macro whose value names another (-D MYARCH=__CUDA_ARCH__). Any other name
// reads the same on every arch of the table.
bool VariesByArch(std::string_view name, const MacroEnv& env);

// Names, viewed in place (they must outlive the lookup that reads them).
using MacroNames = std::set<std::string_view, std::less<>>;

// ArchLookup(arch, env) with the package's per-arch macros named in `hidden` left out: what
// ArchLookup gives for a copy of `env` with those per_arch entries erased, without the copy
// (thousands of entries on CUTLASS, per file). `hidden` must outlive the lookup.
MacroLookup ArchLookup(const arch::Arch& arch, const MacroEnv& env, const MacroNames& hidden);

// A host pass of nvcc (no __CUDA_ARCH* macro defined, compiler-version macros defined) under
// `env`. Audit verdicts are per device pass; this is for callers that want the host view.
MacroLookup HostLookup(const MacroEnv& env);

// `env` alone: -D/-U macros, every other one unknown (or undefined with undef_unknown).
MacroLookup EnvLookup(const MacroEnv& env);

}  // namespace archpatch::cuda
