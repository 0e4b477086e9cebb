// Planning: rules + environment -> EditPlan. Nothing is written; every edit of every rule must
// match (the number of places it expects) or the whole plan fails.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <vector>

#include "env/environment.h"
#include "plan/edit_plan.h"
#include "rules/rule.h"
#include "util/result.h"

namespace archpatch::plan {

struct PlanOptions {
  size_t max_file_bytes = 16u << 20;  // larger files are refused (16 MiB)
  bool check_version = true;          // refuse a distribution outside the rule's range
  // Reads a file the rules select (absolute path); empty: ReadInputFile. Apply passes its
  // snapshot (apply/snapshot.h), so planning reads through the same Disk as the transaction.
  std::function<Result<std::string>(const std::filesystem::path&)> read;
};

// One RulePlan per rule, in order. Errors name the rule, the edit index, the file pattern and what
// was found instead ("rule 'x' edit 2 (flashinfer/jit/comm.py): expected 1 python-gate, found 0;
// gates there: ...").
Result<EditPlan> PlanRules(const std::vector<rules::Rule>& rules, const env::Environment& env,
                           const PlanOptions& options = {});

}  // namespace archpatch::plan
