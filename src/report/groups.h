// Root-cause groups as people and tools read them (docs/audit.md "Root causes and groups"): one
// entry per root cause (the gate that causes its places), its exclusion class, the widen verdict
// over everything it enables, the shipped rules that cover it, and where it belongs (distribution,
// what it switches off). Plain data: scan/ builds it, the human report, --json and --sarif print it.
#pragma once

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/finding.h"

namespace archpatch::report {

// A root cause the known-unsafe list names (rules/known-unsafe.yaml, plan/known_unsafe.h).
struct KnownUnsafeMark {
  std::string id;
  std::string what;
  std::string because;
  std::string reported;
};

struct Group {
  std::string id;                  // "G1", ... in report order
  size_t root = 0;                 // index into the findings
  std::vector<size_t> places;      // the consequences (findings), root excluded
  std::string klass;               // refusal | empty | fast-path | hardware-exclusive | legacy | other-arch
  std::string reason;              // why the class
  std::string widen;               // widen-safe | widen-unsafe | unknown, over what the root enables
  std::vector<std::string> widen_reasons;
  std::vector<std::string> features;    // ids of the instructions the target lacks
  std::vector<std::string> covered_by;  // ids of shipped rules that edit the root
  std::string distribution;        // the package (site-packages folder, or the PATH audited)
  std::string switches_off;        // "kernel rmsnorm_kernel", "function fma", "module gen_x", "file a.cuh"
  std::optional<KnownUnsafeMark> known_unsafe = std::nullopt;  // set: "do not widen", whatever the hazard check says
};

// Whether the human report lists the class by default (refusal, empty, fast-path; hardware-
// exclusive folds into one line per feature; legacy and other-arch only with --show-all).
bool ListedByDefault(std::string_view klass);

// Refusals and empty first, then fast paths, hardware-exclusive, legacy, other-arch.
int ClassRank(std::string_view klass);

struct HumanOptions {
  std::string target;              // "sm_120"
  bool each = false;               // --each: every place under its root cause
  bool show_all = false;           // --show-all: legacy and other-arch groups too
  bool color = false;
  std::vector<std::string> arch_order;  // for verdicts with --each
  size_t files_scanned = 0;
};

// Grouped by distribution, then class order, one line per root cause (hardware-exclusive: one line
// per feature), then a summary that counts root causes and places and says what to run next.
// With `each`, every place follows its root cause's line in full (report/human.h PrintFinding).
void PrintGroups(std::FILE* out, const std::vector<Group>& groups, const std::vector<Finding>& findings,
                 const HumanOptions& options);

// The `groups` array of --json (docs/audit.md).
nlohmann::ordered_json GroupsJson(const std::vector<Group>& groups, const std::vector<Finding>& findings);

}  // namespace archpatch::report
