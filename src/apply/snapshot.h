// Snapshot: the bytes apply works on, read once through store::Disk. Planning, the hazard checks,
// the compiler proof, the diff and the transaction all take a file's bytes from here, so a file
// is read once per run and every step sees the same bytes (a dry run's Disk shows them as the
// real run would find them). StagePlan walks a plan rule by rule over the snapshot: a second rule
// on one file starts from the first one's result, as the planner planned it.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "plan/edit_plan.h"
#include "store/disk.h"
#include "util/result.h"

namespace archpatch::apply {

namespace fs = std::filesystem;

class Snapshot {
 public:
  explicit Snapshot(store::Disk& disk) : disk_(disk) {}

  // The file's bytes as first read (absolute path); later calls return the same bytes.
  Result<std::string> Read(const fs::path& absolute);
  // A reader for plan::PlanOptions::read.
  std::function<Result<std::string>(const fs::path&)> Reader();
  int reads() const { return reads_; }  // reads that reached the Disk

 private:
  store::Disk& disk_;
  std::map<fs::path, std::string> bytes_;
  int reads_ = 0;
};

// One planned file of one rule, with the bytes before and after that rule's edits.
struct StagedFile {
  const plan::RulePlan* rule = nullptr;
  const plan::FilePlan* file = nullptr;
  fs::path absolute;
  std::string before;
  std::string after;
};

struct StagedPlan {
  std::vector<StagedFile> files;         // plan order: rule by rule, file by file
  std::map<fs::path, std::string> last;  // absolute path -> bytes once every rule is applied

  // The staged file of `rule` and `file`, or nullptr.
  const StagedFile* Find(const plan::RulePlan& rule, const plan::FilePlan& file) const;
  // The bytes of `absolute` after the plan: its planned result, or as the snapshot has it.
  Result<std::string> After(Snapshot& snapshot, const fs::path& absolute) const;
};

// Refuses (Fatal, nothing was changed) a file whose bytes are not the plan's sha256_before, or
// whose edits do not give its sha256_after.
StagedPlan StagePlan(const plan::EditPlan& plan, Snapshot& snapshot);

}  // namespace archpatch::apply
