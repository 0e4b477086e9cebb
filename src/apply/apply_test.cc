// The apply stage on FakeDisk: a dry run and a real run report the same, two rules on one file,
// the lock taken before anything is read, I/O failures reported as what is on disk.
#include "apply/apply.h"

#include <gtest/gtest.h>

#include "apply/status.h"
#include "env/digest.h"
#include "store/state_dir.h"

namespace archpatch::apply {
namespace {

const std::filesystem::path kSite = "/env/site-packages";
const std::string kJit = "pkg/jit.py";
const std::string kJitBefore =
    "def gen_module():\n    return dict(supported=[9, 10])\n\n\ndef gen_other():\n    return dict(other=[9, 10])\n";

// A disk that logs every read and write into `events`, beside the locker's lock/unlock.
class LoggingDisk : public store::FakeDisk {
 public:
  explicit LoggingDisk(std::vector<std::string>& events) : events_(events) {}
  Result<std::string> Read(const store::fs::path& p) override {
    events_.push_back("read " + p.string());
    return FakeDisk::Read(p);
  }
  using store::FakeDisk::Replace;
  Status Replace(const store::fs::path& p, std::string_view bytes, const store::ReplaceOptions& options) override {
    events_.push_back("write " + p.string());
    return FakeDisk::Replace(p, bytes, options);
  }

 private:
  std::vector<std::string>& events_;
};

// Every node of a FakeDisk as "kind:bytes", to compare whole disks.
std::map<std::filesystem::path, std::string> Contents(const store::FakeDisk& disk) {
  std::map<std::filesystem::path, std::string> out;
  for (const auto& [path, node] : disk.nodes())
    out[path] = std::to_string(static_cast<int>(node.kind)) + ":" + node.bytes;
  return out;
}

// One rule replacing the first `old` of `path` by `now`, planned against `bytes`.
plan::RulePlan ReplaceRule(const std::string& id, const std::string& path, const std::string& bytes,
                           const std::string& old, const std::string& now) {
  const size_t at = bytes.find(old);
  EXPECT_NE(at, std::string::npos) << old;
  plan::TextEdit e{
      at, at + old.size(), old,   now, 1 + static_cast<int>(std::count(bytes.begin(), bytes.begin() + at, '\n')), 1,
      0,  "replace",       "test"};
  plan::FilePlan file{path, env::Sha256Hex(bytes), "", {e}};
  file.sha256_after = env::Sha256Hex(plan::ApplyEdits(bytes, file));
  plan::RulePlan rule;
  rule.rule_id = id;
  rule.rule_sha256 = std::string(64, 'a');
  rule.distribution = "pkg";
  rule.version = "1.0";
  rule.root = kSite.string();
  rule.targets = {"sm_120"};
  rule.files = {file};
  return rule;
}

plan::RulePlan First(const std::string& bytes = kJitBefore) {
  return ReplaceRule("first", kJit, bytes, "supported=[9, 10]", "supported=[9, 10, 12]");
}

std::string AfterFirst() { return plan::ApplyEdits(kJitBefore, First().files[0]); }

plan::RulePlan Second(const std::string& bytes = AfterFirst()) {
  return ReplaceRule("second", kJit, bytes, "other=[9, 10]", "other=[9, 10, 12]");
}

struct Fixture {
  std::vector<std::string> events;
  LoggingDisk disk{events};
  RecordingLocker locker{events};
  Fixture() { disk.AddFile(kSite / kJit, kJitBefore); }

  ApplyReport Run(std::vector<plan::RulePlan> rules, DryRun dry = DryRun::no) {
    ApplyRequest req;
    req.plan = plan::EditPlan{kSite.string(), std::move(rules)};
    req.env.site_packages = kSite;
    req.dry_run = dry;
    req.store.clear_caches = false;
    req.want_diff = true;
    return Apply(disk, locker, req);
  }
  std::string Jit() { return *disk.FakeDisk::Read(kSite / kJit); }
  StatusReport Status() { return ReadStatus(disk, locker, kSite); }
};

TEST(Apply, ADryRunReportsWhatTheRealRunDoesAndWritesNothing) {
  Fixture f;
  const auto before = Contents(f.disk);
  ApplyReport dry = f.Run({First(), Second()}, DryRun::yes);
  EXPECT_EQ(Contents(f.disk), before) << "a dry run writes nothing";
  ApplyReport real = f.Run({First(), Second()});
  ASSERT_EQ(dry.rules.size(), real.rules.size());
  for (size_t i = 0; i < dry.rules.size(); ++i) {
    EXPECT_EQ(dry.rules[i].outcome, real.rules[i].outcome);
    ASSERT_EQ(dry.rules[i].files.size(), real.rules[i].files.size());
    for (size_t k = 0; k < dry.rules[i].files.size(); ++k) {
      EXPECT_EQ(store::ToJson(dry.rules[i].files[k]), store::ToJson(real.rules[i].files[k]));
    }
  }
  EXPECT_EQ(dry.changed(), real.changed());
  EXPECT_EQ(dry.diff, real.diff);
  EXPECT_EQ(dry.rules[0].message, "rule 'first' would change 1 file(s) (dry run: nothing written)");
  EXPECT_EQ(real.rules[0].message, "applied rule 'first' to pkg 1.0: 1 file(s) changed");
}

TEST(Apply, AfterARealRunTheDryRunSaysAlreadyAppliedAsTheRealRunDoes) {
  Fixture f;
  ASSERT_TRUE(f.Run({First()}).changed());
  ApplyReport dry = f.Run({First()}, DryRun::yes);
  ApplyReport real = f.Run({First()});
  EXPECT_EQ(dry.rules[0].outcome, RuleOutcome::already_applied);
  EXPECT_EQ(real.rules[0].outcome, RuleOutcome::already_applied);
  EXPECT_EQ(dry.rules[0].message, real.rules[0].message);
  EXPECT_FALSE(dry.changed());
}

TEST(Apply, TwoRulesOnOneFileApplyInOneTransaction) {
  Fixture f;
  ApplyReport r = f.Run({First(), Second()});
  ASSERT_FALSE(r.failure);
  EXPECT_EQ(r.rules[0].outcome, RuleOutcome::changed);
  EXPECT_EQ(r.rules[1].outcome, RuleOutcome::changed);
  EXPECT_EQ(f.Jit(), plan::ApplyEdits(AfterFirst(), Second().files[0]));
  StatusReport s = f.Status();
  EXPECT_FALSE(s.drift()) << "the first rule's file is patched again by the second, as planned";
  ASSERT_EQ(s.entries.size(), 2u);
  EXPECT_EQ(s.entries[0].files[0].state, FileState::patched);
  EXPECT_EQ(f.Run({First()}).rules[0].outcome, RuleOutcome::already_applied);
}

TEST(Apply, TwoRulesOnOneFileOneAtATimeLeaveStatusClean) {
  Fixture f;
  ASSERT_TRUE(f.Run({First()}).changed());
  ASSERT_TRUE(f.Run({Second(f.Jit())}).changed());
  EXPECT_FALSE(f.Status().drift());
  ApplyReport again = f.Run({First()});
  EXPECT_EQ(again.rules[0].outcome, RuleOutcome::already_applied);
  EXPECT_FALSE(again.changed());
}

TEST(Apply, TheExclusiveLockIsTakenBeforeAnythingIsReadAndHeldToTheEnd) {
  Fixture f;
  f.Run({First()});
  ASSERT_FALSE(f.events.empty());
  EXPECT_EQ(f.events.front(), "lock exclusive");
  EXPECT_EQ(f.events.back(), "unlock");
  EXPECT_EQ(std::count(f.events.begin(), f.events.end(), "lock exclusive"), 1) << "taken once";
  f.events.clear();
  f.Run({Second(f.Jit())}, DryRun::yes);
  EXPECT_EQ(f.events.front(), "lock shared");
  EXPECT_EQ(
      std::count_if(f.events.begin(), f.events.end(), [](const std::string& e) { return e.starts_with("write"); }), 0);
}

TEST(Apply, EachPlannedFileIsReadOnceThroughTheDisk) {
  Fixture f;
  f.Run({First(), Second()});
  // Once into the snapshot (staging, hazards, proof, diff: both rules), twice by the store's
  // transaction, which checks the disk itself before it writes.
  EXPECT_EQ(std::count(f.events.begin(), f.events.end(), "read " + (kSite / kJit).string()), 3);
}

TEST(Apply, AFileChangedSinceThePlanIsRefusedWithNothingWritten) {
  Fixture f;
  f.disk.AddFile(kSite / kJit, kJitBefore + "# local\n");
  const auto before = Contents(f.disk);
  EXPECT_THROW(f.Run({First()}), Fatal);
  EXPECT_EQ(Contents(f.disk), before);
}

// Every write of the transaction failing in turn (EIO, the process goes on): the report says
// what is on disk, and that is what is on disk.
TEST(Apply, AnIOFailureIsRolledBackAndReportedAsWhatIsOnDisk) {
  for (int allowed = 0;; ++allowed) {
    store::FakeDisk inner;
    inner.AddFile(kSite / kJit, kJitBefore);
    store::FaultyDisk faulty(inner, allowed, store::FaultyDisk::Fault::error);
    std::vector<std::string> events;
    RecordingLocker locker(events);
    ApplyRequest req;
    req.plan = plan::EditPlan{kSite.string(), {First(), Second()}};
    req.env.site_packages = kSite;
    req.store.clear_caches = false;
    ApplyReport r = Apply(faulty, locker, req);
    const std::string now = *inner.Read(kSite / kJit);
    store::StateDir state(inner, kSite);
    const bool journal = state.LoadJournal()->has_value();
    if (r.failure) {
      EXPECT_EQ(r.failure->on_disk, OnDisk::unchanged) << allowed;
      EXPECT_FALSE(r.changed()) << allowed;
      EXPECT_EQ(now, kJitBefore) << allowed << ": " << r.failure->message;
      EXPECT_FALSE(journal) << allowed;
      EXPECT_EQ(state.LoadManifest()->entries.size(), 0u) << allowed;
      continue;
    }
    EXPECT_TRUE(r.changed());
    EXPECT_NE(now, kJitBefore);
    EXPECT_FALSE(journal) << allowed;
    EXPECT_EQ(state.LoadManifest()->entries.size(), 2u);
    // The first run without a failure is the one whose last write, the journal's removal, failed:
    // the rules are applied and recorded, and the report says so.
    ASSERT_FALSE(r.notes.empty()) << allowed;
    EXPECT_NE(r.notes.back().find("after the rules were applied and recorded"), std::string::npos) << r.notes.back();
    break;
  }
}

TEST(Status, AHalfDoneTransactionIsDriftAndSaysWhetherItCommitted) {
  Fixture f;
  store::StateDir state(f.disk, kSite);
  ASSERT_TRUE(state.Create());
  ASSERT_TRUE(state.SaveJournal({"apply",
                                 "t1",
                                 "now",
                                 {"first"},
                                 {{kJit, env::Sha256Hex(kJitBefore), env::Sha256Hex("patched"),
                                   "backups/" + env::Sha256Hex(kJitBefore), std::nullopt}}}));
  f.events.clear();
  StatusReport s = f.Status();
  ASSERT_TRUE(s.half_done);
  EXPECT_FALSE(s.half_done->committed);
  EXPECT_EQ(s.half_done->files[0].state, FileState::original);
  EXPECT_TRUE(s.drift());
  EXPECT_EQ(f.events.front(), "lock shared");
}

}  // namespace
}  // namespace archpatch::apply
