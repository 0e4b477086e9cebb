#include "apply/snapshot.h"

#include <fmt/format.h>

#include "env/digest.h"

namespace archpatch::apply {

Result<std::string> Snapshot::Read(const fs::path& absolute) {
  if (auto it = bytes_.find(absolute); it != bytes_.end()) return it->second;
  Result<std::string> bytes = disk_.Read(absolute);
  ++reads_;
  if (!bytes) return bytes;
  return bytes_.emplace(absolute, std::move(*bytes)).first->second;
}

std::function<Result<std::string>(const fs::path&)> Snapshot::Reader() {
  return [this](const fs::path& absolute) { return Read(absolute); };
}

const StagedFile* StagedPlan::Find(const plan::RulePlan& rule, const plan::FilePlan& file) const {
  for (const StagedFile& f : files) {
    if (f.rule == &rule && f.file == &file) return &f;
  }
  return nullptr;
}

Result<std::string> StagedPlan::After(Snapshot& snapshot, const fs::path& absolute) const {
  if (auto it = last.find(absolute); it != last.end()) return it->second;
  return snapshot.Read(absolute);
}

StagedPlan StagePlan(const plan::EditPlan& plan, Snapshot& snapshot) {
  StagedPlan staged;
  for (const plan::RulePlan& rule : plan.rules) {
    for (const plan::FilePlan& file : rule.files) {
      const fs::path absolute = fs::path(rule.root) / file.path;
      std::string before;
      if (auto it = staged.last.find(absolute); it != staged.last.end()) {
        before = it->second;
      } else {
        Result<std::string> read = snapshot.Read(absolute);
        if (!read) throw Fatal(fmt::format("{}; nothing was changed", read.error().str()));
        before = std::move(*read);
      }
      if (const std::string sha = env::Sha256Hex(before); sha != file.sha256_before) {
        throw Fatal(
            fmt::format("{}: file changed since the plan was made (SHA-256 '{}', plan expects '{}'); "
                        "nothing was changed",
                        file.path, sha, file.sha256_before));
      }
      std::string after = plan::ApplyEdits(before, file);
      if (env::Sha256Hex(after) != file.sha256_after) {
        throw Fatal(
            fmt::format("{}: the plan's edits do not produce its sha256_after; nothing was changed", file.path));
      }
      staged.last[absolute] = after;
      staged.files.push_back({&rule, &file, absolute, std::move(before), std::move(after)});
    }
  }
  return staged;
}

}  // namespace archpatch::apply
