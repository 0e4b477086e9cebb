// The gate model: what every scanner (cuda/, python/, binary/) and evaluator (hazard/) finds,
// as typed values. A Finding is one gate (or hazard) in one file: where it is (file, line,
// column, byte span, scope), how it is written (its form), its verdict per arch, the block it
// guards and what that block holds. No JSON here: src/report turns a Finding into the --json
// contract (docs/audit.md) and into text for people.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "util/tri.h"

namespace archpatch::gate {

// What was found. The spelling in --json is KindName().
enum class Kind {
  kCudaGate,              // #if/#elif/#else on __CUDA_ARCH__ & co., <nv/target> NV_IF_TARGET branches
  kCppRuntimeGate,        // a host C++ check of the device's compute capability
  kPythonGate,            // a Python capability check or arch list
  kEmptyKernel,           // a __global__ kernel whose body compiles to nothing on the target
  kWidenUnsafe,           // a planned edit opens a block that uses what the target lacks
  kWidenUnknown,          // a planned edit opens a block that calls code archpatch cannot see
  kBinaryCoverage,        // a prebuilt binary's kernel images against the target
  kPrebuiltWithoutImage,  // a planned edit lets the target into a module whose precompiled
                          // artifacts hold no image for it (scan/prebuilt_link.h)
};
std::string_view KindName(Kind kind);                  // "cuda-gate", "cpp-runtime-gate", ...
std::optional<Kind> ParseKind(std::string_view name);  // the inverse of KindName

enum class Severity { kInfo, kWarning, kError };
std::string_view SeverityName(Severity s);  // "info", "warning", "error"

// A verdict on one arch: true = the gate lets that arch in (the branch is compiled, the check
// passes), false = it keeps it out, unknown = it depends on what archpatch cannot know.
struct ArchVerdict {
  std::string arch;  // "sm_120a"
  Tri value = Tri::kUnknown;
  bool operator==(const ArchVerdict&) const = default;
};
using Verdicts = std::vector<ArchVerdict>;  // in arch table order, the target first in an audit

// The value for `arch`; unknown when the arch is not among the verdicts.
Tri VerdictOn(const Verdicts& verdicts, std::string_view arch);

// Byte offsets [begin, end) into the file as it is on disk (BOM included), so a later rewrite
// touches exactly these bytes.
struct ByteSpan {
  size_t begin = 0;
  size_t end = 0;
  bool operator==(const ByteSpan&) const = default;
};

// One step of how a gate was resolved: the place a name was bound or defined, with the text found
// there. `name` is the name resolved through it ("" for a plain condition); `false_on` is set for a
// predicate call (the arches its value is false on).
struct Place {
  std::string file;
  int line = 0, column = 0;
  std::string text;
  std::string name;
  std::optional<std::vector<std::string>> false_on;
  bool operator==(const Place&) const = default;
};

// Which way a gate's true branch goes: into a refusal (raise, assert, return False, #error), into
// the path that does the work, or (Python) into a fallback the target takes instead.
enum class Direction { kUnknown, kRefuses, kEnables, kFallback };
std::string_view DirectionName(Direction d);  // "unknown", "refuses", "enables", "fallback"

// What the branch the target takes holds compared with what other arches get (docs/audit.md
// "What counts as an exclusion"). Ordered from the most to the least important for a person
// deploying on the target: the order of the report and of root causes' classes.
enum class ExclusionClass {
  kRefusal,            // the target gets an error, a trap or a refusal
  kEmpty,              // the target gets nothing where others get code (a kernel or block left out)
  kFastPath,           // the target gets a generic path where others get a specialised one
  kHardwareExclusive,  // the code needs an instruction the target lacks (rules/features.yaml)
  kLegacy,             // only older arches take it; the target takes a branch with code
  kOtherArch,          // one other chip's path, or a refusal/empty branch the target avoids
};
std::string_view ExclusionClassName(ExclusionClass c);  // "refusal", "empty", "fast-path", ...
// The inverse of ExclusionClassName; kOtherArch for an unknown name.
ExclusionClass ExclusionClassFromName(std::string_view name);
// Refusal, empty, fast-path and hardware-exclusive keep the target out (the report lists them by
// default); legacy and other-arch do not.
bool KeepsTargetOut(ExclusionClass c);
// The class's place in that order: refusal 0, empty 1, ..., other-arch 5.
inline int ClassRank(ExclusionClass c) { return static_cast<int>(c); }

// What a branch's block holds once its directive lines are set aside.
enum class BlockHolds {
  kNothing,  // whitespace and comments only
  kDefines,  // only preprocessor lines, at least one #define (a feature-macro block)
  kRefusal,  // a short block that stops: #error, static_assert(false...), trap, abort, an error printf
  kCode,     // anything else
};
std::string_view BlockHoldsName(BlockHolds holds);  // "nothing", "defines", "refusal", "code"

// The branch of its chain the target takes instead of this one.
struct TargetBranch {
  BlockHolds holds = BlockHolds::kNothing;
  bool certain = true;  // false when an earlier branch's verdict is unknown on the target
  int line = 0;         // the line of its '#'; 0 when the target takes no branch (no #else)
};

// A finding's exclusion class for the target, and why.
struct Classification {
  ExclusionClass klass = ExclusionClass::kRefusal;
  std::string reason;                        // one clause for people
  std::optional<TargetBranch> target_takes;  // directive branches: what the target takes instead
};

// The root-cause group a consequence belongs to (scan/groups.h): the group's id and where its
// root finding is.
struct RootLink {
  std::string group;  // "G3"
  std::string file;
  int line = 0, column = 0;
};

// The preprocessor directive of a branch of an #if chain.
enum class DirectiveKind { kIf, kIfdef, kIfndef, kElif, kElifdef, kElifndef, kElse };
std::string_view DirectiveName(DirectiveKind kind);  // "if", "ifdef", ..., "else"

// The bytes a branch guards and what they hold.
struct Block {
  int first_line = 0, last_line = 0;  // 1-based; last < first for an empty block
  ByteSpan bytes;
  std::vector<std::string> kernels;  // __global__ functions declared inside, in file order
  std::vector<std::string> defines;  // macros #defined inside (directive branches), in file order
  std::optional<BlockHolds> holds;   // directive branches: what the block holds
  int lines() const { return last_line >= first_line ? last_line - first_line + 1 : 0; }
};

// Where a branch stands in its chain and nest: what decides whether its own verdict matters.
struct Chain {
  std::optional<Verdicts> earlier_taken;  // per arch: an earlier branch of the chain is taken
  int enclosing_line = 0;                 // the enclosing branch's condition line; 0 if not nested
  std::optional<Verdicts> enclosing;      // the enclosing branch's verdict (a runtime check: the
                                          // if arms around it, whether the arch reaches it)
  // --json writes enclosing_verdict before earlier_verdict: the order the token pass of runtime
  // checks found them in (src/cuda/runtime_tokens.cc), kept so the output stays as it was.
  bool enclosing_before_earlier = false;
};

// The forms a gate is written in, each with what is particular to it.
struct DirectiveForm {  // #if / #elif / #else
  DirectiveKind directive = DirectiveKind::kIf;
  int directive_line = 0;  // the line of the '#'
  std::string effective;   // the condition the branch is taken on, earlier branches folded in
};
struct NvTargetForm {                    // NV_IF_TARGET(NV_PROVIDES_SM_90, ...) and friends
  std::string macro;                     // "NV_IF_TARGET", "NV_IF_ELSE_TARGET", "NV_DISPATCH_TARGET"
  std::string branch;                    // the query ("NV_PROVIDES_SM_90") or "else"
  std::optional<std::string> condition;  // the query as an #if condition, when it has one
};
struct RuntimeForm {  // host C++: if (major < 9), TORCH_CHECK(cc >= 90, ...)
  std::string form;   // how the check is written (src/cuda/runtime_gates.cc)
  std::string check;  // the checking macro or function, when there is one ("TORCH_CHECK")
};
// A Python value as the gate compares against it.
struct PythonValue {
  enum class Type { kNull, kInt, kString, kList };
  Type type = Type::kNull;
  long long number = 0;
  std::string text;
  std::vector<PythonValue> items;
};
struct PythonTerm {  // one comparison of a condition: "major >= 9"
  std::string operand, op;
  PythonValue value;
};
struct PythonForm {
  std::string shape;                     // "condition", "keyword", "assignment", "arch-string", ...
  std::string name;                      // the variable or keyword holding the literal
  std::vector<PythonTerm> terms;         // shape "condition": every comparison
  std::string operand, op;               // other shapes: what the literal is compared as
  PythonValue values;                    // other shapes: the literal's values
  bool negated = false;                  // branch shapes: the test reads `not ...`
  std::optional<ByteSpan> literal_span;  // the literal an edit rewrites; none for shapes the
                                         // package model resolves (predicate-call, bound-condition)
};
using Form = std::variant<std::monostate, DirectiveForm, NvTargetForm, RuntimeForm, PythonForm>;

// One arch-specific thing a block uses (rules/features.yaml).
struct FeatureUse {
  std::string feature, what, found;  // id, what it is, the word as written
  int line = 0;
  std::string via;                  // the helper it was found in; "" in the block itself
  std::vector<std::string> arches;  // where it exists
  std::string source;               // where the feature table says so
};
enum class WidenSafety { kSafe, kUnsafe, kUnknown };
std::string_view WidenSafetyName(WidenSafety s);  // "widen-safe", "widen-unsafe", "unknown"

// Whether opening a gated block to the target is safe, and why (docs/hazards.md).
struct WidenHazard {
  WidenSafety safety = WidenSafety::kSafe;
  std::string target;
  std::vector<FeatureUse> needs;          // uses the target lacks
  std::vector<FeatureUse> uses;           // every arch-specific use
  std::vector<std::string> unseen_calls;  // calls into code archpatch cannot see
  std::string available_on_variant;       // the target's 'a' variant has what is missing; "" if not
  std::string reason;                     // one sentence for people
};

// A gate of the #if chain that switches an empty kernel's body off.
struct KernelGate {
  int line = 0;
  std::string directive, condition;
  std::optional<WidenHazard> widen;
};
struct EmptyKernel {
  std::string kernel, target;
  std::vector<std::string> empty_on, real_body_on;
  std::vector<KernelGate> gates;
};

// A prebuilt binary's kernel images (src/binary).
struct TargetCoverage {
  std::string target, status;
  std::optional<std::string> runs;          // the image that runs there
  std::optional<std::string> ptx_version;   // when it runs by JIT-compiling PTX
  std::optional<std::string> runtime_note;  // status runtime-built: how the library builds them
};
struct BinaryCoverage {
  std::vector<std::string> sass, ptx;
  std::vector<TargetCoverage> targets;  // the first is the audit's target
  std::string distribution;
};

// Precompiled code a gate's module loads at run time: one artifact group a package declares
// (FlashInfer's `ArtifactPath.TRTLLM_GEN_BMM`, fetched into its cubin cache or shipped by the
// flashinfer-cubin distribution), with the arches its images are for (scan/artifacts.h).
enum class ArchesFrom { kUnknown, kCubinHeaders, kFileNames, kDeclaredList };
std::string_view ArchesFromName(ArchesFrom from);  // "unknown", "cubin-headers", "file-names", "declared-list"

struct PrebuiltArtifacts {
  std::string group;                // "TRTLLM_GEN_BMM"
  std::string declared;             // where the group is declared: "flashinfer/artifacts.py:139"
  std::string path;                 // its folder in the cubin cache ("5988e15c.../batched_gemm-...")
  std::string via;                  // the function that names it ("gen_trtllm_gen_fused_moe_sm100_module")
  std::vector<std::string> arches;  // the arches its images are for ("sm_100f"); empty: unknown
  ArchesFrom arches_from = ArchesFrom::kUnknown;
  std::vector<std::string> binaries;   // installed files of the group found (at most a few)
  size_t binary_count = 0;             // all of them
  Tri runs_on_target = Tri::kUnknown;  // an image runs on the audit's target; unknown: no arches known
  bool operator==(const PrebuiltArtifacts&) const = default;
};

struct Finding {
  std::string file;  // path as given on the command line, or relative to the scanned root
  int line = 0;      // 1-based
  int column = 0;    // 1-based, in bytes
  Kind kind = Kind::kCudaGate;
  std::string text;   // the condition or literal as written (continuations folded)
  Verdicts verdict;   // in arch table order
  std::string scope;  // enclosing function/class chain ("gen_trtllm_comm_module"), if any
  ByteSpan span;      // exact bytes of the condition or literal
  Severity severity = Severity::kWarning;
  std::string summary;  // one line for people: what the gate keeps off

  Form form;                   // how the gate is written
  std::optional<Block> block;  // what the branch guards
  Chain chain;                 // earlier and enclosing branches

  // Filled by the evaluators after the scan.
  std::optional<WidenHazard> widen;            // hazard: may this block be opened to the target
  std::optional<EmptyKernel> empty_kernel;     // kind kEmptyKernel
  std::optional<BinaryCoverage> binary;        // kind kBinaryCoverage
  std::vector<std::string> no_image_binaries;  // python: binaries the module loads that cannot run
  std::vector<PrebuiltArtifacts> prebuilt;     // precompiled artifacts the gate's module loads
  bool prebuilt_read = false;                  // scan/prebuilt_link.h looked for them (never in a report)
  std::string rule;                            // the rule whose plan this hazard belongs to
  std::string reached_through;                 // the Python file whose edit makes it reachable
  std::vector<std::string> explain;            // plain-words lines for the human report

  // How the gate was resolved, which way it goes, what the target's branch holds and the root
  // cause it belongs to. Empty or unset until the analyses that fill them run.
  std::vector<Place> via;  // the chain of places the gate was resolved through
  Direction direction = Direction::kUnknown;
  std::optional<Classification> exclusion;  // the scan's (directive branches) or scan::BuildGroups'
  std::optional<size_t> enables;            // a root cause's consequences its widen verdict covers
  std::optional<RootLink> root;             // a consequence: the root cause it follows from

  Tri VerdictFor(std::string_view arch) const { return VerdictOn(verdict, arch); }
  const DirectiveForm* directive() const { return std::get_if<DirectiveForm>(&form); }
  const NvTargetForm* nv_target() const { return std::get_if<NvTargetForm>(&form); }
  const RuntimeForm* runtime() const { return std::get_if<RuntimeForm>(&form); }
  const PythonForm* python() const { return std::get_if<PythonForm>(&form); }
};

// Sorts by file, then line, then column: the order every report prints.
void SortFindings(std::vector<Finding>& findings);
// The findings of every part in that order (stable: a place's own in the order of the parts),
// each moved once (a Finding is 1.4 KB: moved into one vector first, then sorted into a second,
// FlashInfer + CUTLASS's 2,700 findings were two 3.8 MB vectors on the audit's serial end).
std::vector<Finding> SortedFindings(const std::vector<std::vector<Finding>*>& parts);

}  // namespace archpatch::gate

namespace archpatch {
// The gate model is the project's vocabulary: every stage names these without the namespace.
using gate::ArchVerdict;
using gate::ByteSpan;
using gate::Finding;
using gate::Severity;
using gate::SeverityName;
using gate::SortFindings;
}  // namespace archpatch
