#include "apply/verify.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "apply/drift.h"
#include "apply/snapshot.h"
#include "env/digest.h"
#include "plan/planner.h"
#include "rules/loader.h"
#include "scan/scan.h"
#include "store/state_dir.h"

namespace archpatch::apply {
namespace {

Result<store::Manifest> LoadManifest(store::StateDir& state) {
  Result<store::Manifest> manifest = state.LoadManifest();
  if (!manifest) throw Fatal(manifest.error().str());
  return manifest;
}

// path -> the last entry that recorded it and its record.
std::map<std::string, std::pair<const store::Entry*, const store::FileRecord*>> LastRecords(
    const store::Manifest& manifest) {
  std::map<std::string, std::pair<const store::Entry*, const store::FileRecord*>> last;
  for (const store::Entry& e : manifest.entries) {
    for (const store::FileRecord& f : e.files) last[f.path] = {&e, &f};
  }
  return last;
}

// RECORD's files read through the Disk: confined below site-packages as every command's reads
// are, and on a FakeDisk in tests.
class DiskFiles : public env::InstalledFiles {
 public:
  explicit DiskFiles(store::Disk& disk) : disk_(disk) {}
  bool Exists(const std::filesystem::path& path) override { return disk_.Stat(path).kind != store::FileKind::missing; }
  Result<std::string> RecordHash(const std::filesystem::path& path) override {
    env::Sha256Stream digest;
    Status read = disk_.ReadPieces(path, [&](std::string_view piece) { digest.Update(piece); });
    if (!read) return read.error();
    return digest.UrlsafeB64();
  }

 private:
  store::Disk& disk_;
};

DistributionCheck CheckDistribution(store::StateDir& state, const store::Manifest& manifest,
                                    const env::Distribution& dist, bool& drift) {
  const auto patched = LastRecords(manifest);
  DistributionCheck out{dist.normalized_name, dist.version, dist.record.size(), {}};
  DiskFiles files(state.disk());
  for (const env::FileCheck& check : env::ModifiedFiles(dist, files)) {
    RecordProblem problem{check.path, std::string(env::FileStateName(check.state)), ""};
    // RECORD paths are relative to the distribution's root, the manifest's to site-packages.
    const std::string relative = (dist.root / check.path).lexically_relative(state.site()).generic_string();
    auto p = patched.find(relative);
    if (p != patched.end() && check.state == env::FileState::kModified &&
        StateOf(state, manifest, *p->second.first, *p->second.second) == FileState::patched) {
      problem.state = "patched";
      problem.rule = p->second.first->rule;
    }
    drift |= problem.state != "patched";
    out.problems.push_back(std::move(problem));
  }
  return out;
}

std::vector<arch::Arch> Targets(const std::vector<std::string>& names) {
  std::vector<arch::Arch> out;
  for (const std::string& n : names) {
    if (Result<arch::Arch> a = arch::ParseArch(n)) out.push_back(*a);
  }
  return out;
}

// The bytes `file` of `entry` left: the file now, or, when a later rule patched it again, that
// rule's backup (its original is this rule's result).
Result<std::string> PatchedBytes(store::StateDir& state, const store::Manifest& manifest, const store::Entry& entry,
                                 const store::FileRecord& file) {
  Result<std::string> now = state.disk().Read(state.FilePath(file.path));
  if (now && env::Sha256Hex(*now) == file.patched_sha256) return now;
  bool later = false;
  for (const store::Entry& e : manifest.entries) {
    later |= &e == &entry;
    if (!later || &e == &entry) continue;
    for (const store::FileRecord& f : e.files) {
      if (f.path == file.path && f.original_sha256 == file.patched_sha256) {
        return state.ReadBackup(f.backup, f.original_sha256);
      }
    }
  }
  return now;
}

// Applied rules: each CUDA file's backup (the original) against the bytes the rule left.
void ProveApplied(store::StateDir& state, const store::Manifest& manifest, const store::Entry& entry,
                  const hazard::ProofOptions& o, PlanProof& out) {
  for (const store::FileRecord& f : entry.files) {
    if (scan::KindOf(f.path) != scan::FileKind::kCuda) {
      out.skipped.push_back(fmt::format("{}: not a CUDA/C++ file; the compiler proof covers CUDA edits", f.path));
      continue;
    }
    Result<std::string> before = state.ReadBackup(f.backup, f.original_sha256);
    Result<std::string> after = PatchedBytes(state, manifest, entry, f);
    if (!before || !after) throw Fatal(fmt::format("{}: cannot read the original or the patched file", f.path));
    Result<hazard::FileProof> proof =
        hazard::ProveEdit(f.path, *before, *after, EditedSpans(*before, f.edits), Targets(entry.targets), o);
    if (!proof) throw Fatal(proof.error().str());
    out.files.push_back(std::move(*proof));
  }
}

}  // namespace

VerifyReport VerifyRecords(store::Disk& disk, Locker& locker, const env::Environment& env,
                           const std::vector<const env::Distribution*>& distributions) {
  Result<std::unique_ptr<HeldLock>> lock = locker.Lock(env.site_packages, LockMode::shared);
  if (!lock) throw Fatal(lock.error().str());
  store::StateDir state(disk, env.site_packages);
  const store::Manifest manifest = *LoadManifest(state);
  VerifyReport report;
  for (const env::Distribution* d : distributions) {
    report.distributions.push_back(CheckDistribution(state, manifest, *d, report.drift));
  }
  return report;
}

std::vector<ByteSpan> EditedSpans(const std::string& original, const std::vector<store::EditRecord>& edits) {
  std::vector<ByteSpan> spans;
  for (const store::EditRecord& e : edits) {
    if (e.spanned) {
      if (e.end <= original.size() && original.compare(e.begin, e.end - e.begin, e.before) == 0) {
        spans.push_back({e.begin, e.end});
      }
      continue;
    }
    size_t line_start = 0;
    for (int l = 1; l < e.line && line_start != std::string::npos; ++l) {
      line_start = original.find('\n', line_start);
      if (line_start != std::string::npos) ++line_start;
    }
    if (line_start == std::string::npos) continue;
    const size_t at = original.find(e.before, line_start);
    if (at != std::string::npos) spans.push_back({at, at + e.before.size()});
  }
  return spans;
}

PlanProof ProveRules(store::Disk& disk, Locker& locker, const env::Environment& env,
                     const std::vector<std::string>& wanted, const hazard::ProofOptions& options) {
  Result<std::unique_ptr<HeldLock>> lock = locker.Lock(env.site_packages, LockMode::shared);
  if (!lock) throw Fatal(lock.error().str());
  store::StateDir state(disk, env.site_packages);
  const store::Manifest manifest = *LoadManifest(state);
  PlanProof proof;
  for (const store::Entry& e : manifest.entries) {
    if (wanted.empty() || std::find(wanted.begin(), wanted.end(), e.rule) != wanted.end()) {
      ProveApplied(state, manifest, e, options, proof);
    }
  }
  std::vector<rules::Rule> unapplied;
  for (const std::string& id : wanted) {
    if (manifest.Find(id)) continue;
    Result<rules::Rule> rule = rules::LoadRule(id);
    if (!rule) throw UsageError(rule.error().str());
    unapplied.push_back(std::move(*rule));
  }
  if (unapplied.empty()) return proof;
  Snapshot snapshot(disk);
  plan::PlanOptions plan_options;
  plan_options.read = snapshot.Reader();
  Result<plan::EditPlan> planned = plan::PlanRules(unapplied, env, plan_options);
  if (!planned) throw Fatal(planned.error().str());
  Result<PlanProof> more = ProvePlan(StagePlan(*planned, snapshot), options);
  if (!more) throw Fatal(more.error().str());
  proof.files.insert(proof.files.end(), more->files.begin(), more->files.end());
  proof.skipped.insert(proof.skipped.end(), more->skipped.begin(), more->skipped.end());
  return proof;
}

}  // namespace archpatch::apply
