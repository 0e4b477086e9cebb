// A root-cause group (docs/audit.md "Root causes and groups"): one entry per root cause (the gate
// that causes its places), its exclusion class, the widen verdict over everything it enables, the
// shipped rules that cover it, and where it belongs (distribution, what it switches off). Plain
// data: scan/groups.h builds it; the human report, --json and --sarif (src/report) print it.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "gate/finding.h"

namespace archpatch::gate {

// A root cause the known-unsafe list names (rules/known-unsafe.yaml, plan/known_unsafe.h).
struct KnownUnsafeMark {
  std::string id;
  std::string what;
  std::string because;
  std::string reported;
};

struct Group {
  std::string id;              // "G1", ... in report order
  size_t root = 0;             // index into the findings
  std::vector<size_t> places;  // the consequences (findings), root excluded
  ExclusionClass klass = ExclusionClass::kRefusal;
  std::string reason;                      // why the class
  WidenSafety widen = WidenSafety::kSafe;  // over what the root enables
  std::vector<std::string> widen_reasons;
  std::vector<std::string> features;    // ids of the instructions the target lacks
  std::vector<std::string> covered_by;  // ids of shipped rules that edit the root
  std::string distribution;             // the package (site-packages folder, or the PATH audited)
  std::string switches_off;             // "kernel rmsnorm_kernel", "function fma", "module gen_x", "file a.cuh"
  std::optional<KnownUnsafeMark> known_unsafe = std::nullopt;  // set: "do not widen", whatever the hazard check says
  std::vector<PrebuiltArtifacts> prebuilt = {};                // what the root's and places' modules load precompiled
  std::string available_on_variant = {};  // the target's 'a' variant has all `features` ("" if not)
  // The target's 'a' variant when the root's gate admits it and refuses the target (CUTLASS's
  // `defined(__CUDA_ARCH_FEAT_SM120_ALL)`): a build for sm_120a takes the path. "" otherwise.
  std::string admitted_on_variant = {};
};

}  // namespace archpatch::gate
