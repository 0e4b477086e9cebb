// A root cause as suggest reads it: the audit's group (gate::Group) and its root finding,
// flattened into plain fields. This is the only file of src/suggest that reads Group or Finding,
// so a change of the gate model touches it alone.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "gate/finding.h"
#include "gate/group.h"

namespace archpatch::suggest {

// An instruction or feature the gated block uses, as the hazard stage found it (rules/features.yaml).
struct UsedFeature {
  std::string id;    // "griddepcontrol"
  std::string what;  // "programmatic dependent launch (...)"
};

struct Candidate {
  // The group.
  std::string group;              // "G3"
  std::string klass;              // refusal | empty | fast-path | hardware-exclusive | legacy | other-arch
  bool keeps_target_out = false;  // refusal, empty, fast-path, hardware-exclusive
  std::string class_reason;       // "sm_120 gets nothing in its place"
  std::string widen;              // widen-safe | widen-unsafe | unknown
  std::vector<std::string> widen_reasons;
  std::vector<std::string> lacking;     // features the target lacks (hardware-exclusive)
  std::string lacking_variant;          // the target's variant that has them all ("sm_120a"); "" if none
  std::string admitted_variant;         // the target's variant the gate admits though it refuses the target
  std::vector<std::string> covered_by;  // shipped rules that edit the root already
  std::string known_unsafe;             // "do not widen: ..., because ... [known-unsafe ID]"; "" when not listed
  std::string switches_off;             // "kernel allreduce_sum_kernel"
  size_t places = 0;                    // the consequences, root excluded
  // The root gate.
  std::string file;  // as the audit reports it (absolute for an environment)
  int line = 0;
  int column = 0;
  std::string kind;       // cuda-gate | python-gate | cpp-runtime-gate | ...
  std::string form;       // cuda-gate: "directive" for #if/#elif
  std::string directive;  // cuda-gate: "if", "elif", ...
  std::string text;
  std::string scope;    // enclosing function/class chain, "" at file level
  std::string name;     // python-gate: the keyword or assigned name
  std::string operand;  // python-gate: "major", "capability", "arch", ...
  size_t span_begin = 0;
  std::string widen_sentence;         // the hazard stage's sentence on the root
  std::vector<UsedFeature> uses;      // what the gated block uses, each present on the target
  std::vector<std::string> admitted;  // the arches the root's own verdict lets in ("sm_90", ...)
};

// One candidate per group, in the groups' order.
std::vector<Candidate> ToCandidates(const std::vector<gate::Group>& groups, const std::vector<gate::Finding>& findings);

}  // namespace archpatch::suggest
