#include "store/transaction.h"

#include <gtest/gtest.h>

#include "env/digest.h"

namespace archpatch::store {

using env::Sha256Hex;
namespace {

const fs::path kSite = "/env/site-packages";
const std::string kComm = "flashinfer/jit/comm.py";
const std::string kHeader = "flashinfer/data/include/flashinfer/comm/trtllm_allreduce.cuh";
// CRLF, a BOM and no final newline: all must survive byte for byte.
const std::string kCommBefore = "\xEF\xBB\xBFnvcc_flags = gen(supported_major_versions=[9, 10])\r\nx = 1";
const std::string kCommAfter = "\xEF\xBB\xBFnvcc_flags = gen(supported_major_versions=[9, 10, 12])\r\nx = 1";
const std::string kHeaderBefore = "#if (__CUDA_ARCH__ >= 900) && (__CUDA_ARCH__ < 1200)\nsync();\n#endif\n";
const std::string kHeaderAfter = "#if (__CUDA_ARCH__ >= 900)\nsync();\n#endif\n";

struct Fixture {
  FakeDisk disk;
  Fixture() {
    disk.AddFile(kSite / kComm, kCommBefore);
    disk.AddFile(kSite / kHeader, kHeaderBefore);
  }
  std::string Bytes(const std::string& rel) { return *disk.Read(kSite / rel); }
};

RuleChange FlashInferChange() {
  RuleChange change;
  change.entry.rule = "flashinfer-trtllm-allreduce-sm12x";
  change.entry.rule_sha256 = std::string(64, 'a');
  change.entry.distribution = "flashinfer-python";
  change.entry.version = "0.3.1";
  change.entry.caches = {"flashinfer"};
  change.files.push_back({kComm,
                          Sha256Hex(kCommBefore),
                          kCommAfter,
                          {{1, "supported_major_versions=[9, 10]", "supported_major_versions=[9, 10, 12]"}},
                          nullptr});
  change.files.push_back({kHeader,
                          Sha256Hex(kHeaderBefore),
                          kHeaderAfter,
                          {{1, "&& (__CUDA_ARCH__ < 1200)", ""}},
                          nlohmann::json{{"sm_120", "false -> true"}}});
  return change;
}

TEST(Apply, WritesExactBytesRecordsTheManifestAndDropsTheJournal) {
  Fixture f;
  StateDir state(f.disk, kSite);
  Result<ApplyOutcome> out = ApplyChanges(state, {FlashInferChange()}, {});
  ASSERT_TRUE(out) << out.error().str();
  EXPECT_EQ(f.Bytes(kComm), kCommAfter);
  EXPECT_EQ(f.Bytes(kHeader), kHeaderAfter);
  EXPECT_FALSE(f.disk.Stat(state.journal_path()).exists());
  Manifest m = *state.LoadManifest();
  ASSERT_EQ(m.entries.size(), 1u);
  const Entry& e = m.entries[0];
  EXPECT_EQ(e.rule, "flashinfer-trtllm-allreduce-sm12x");
  EXPECT_EQ(e.files[0].original_sha256, Sha256Hex(kCommBefore));
  EXPECT_EQ(e.files[0].patched_sha256, Sha256Hex(kCommAfter));
  EXPECT_EQ(e.files[1].blast_radius["sm_120"], "false -> true");
  EXPECT_EQ(*state.ReadBackup(e.files[0].backup, e.files[0].original_sha256), kCommBefore);
  EXPECT_TRUE(e.applied_at.ends_with("Z"));
}

TEST(Apply, RefusesAFileThatChangedSinceThePlanAndWritesNothing) {
  Fixture f;
  f.disk.AddFile(kSite / kHeader, kHeaderBefore + "// edited\n");
  StateDir state(f.disk, kSite);
  int before = f.disk.writes();
  Result<ApplyOutcome> out = ApplyChanges(state, {FlashInferChange()}, {});
  ASSERT_FALSE(out);
  EXPECT_NE(out.error().str().find(kHeader + ": file changed since the plan was made"), std::string::npos)
      << out.error().str();
  EXPECT_EQ(f.disk.writes(), before);
  EXPECT_EQ(f.Bytes(kComm), kCommBefore);
}

struct BadPath {
  std::string path;
  std::string message;
};

class ApplyRefusesPath : public testing::TestWithParam<BadPath> {};

TEST_P(ApplyRefusesPath, WithAClearMessageAndNoWrite) {
  Fixture f;
  f.disk.AddFile("/etc/passwd", "root:x:0:0\n");
  f.disk.AddSymlink(kSite / "evil", "/etc");
  f.disk.AddFile(kSite / "ro.py", "x = 1\n", 0444);
  f.disk.AddFile(kSite / "rodir/a.py", "x = 1\n");
  const_cast<FakeDisk::Node&>(f.disk.nodes().at(kSite / "rodir")).mode = 0555;
  StateDir state(f.disk, kSite);
  RuleChange change = FlashInferChange();
  change.files[1].path = GetParam().path;
  change.files[1].original_sha256 = Sha256Hex(GetParam().path == "evil/passwd" ? "root:x:0:0\n" : "x = 1\n");
  int before = f.disk.writes();
  Result<ApplyOutcome> out = ApplyChanges(state, {change}, {});
  ASSERT_FALSE(out);
  EXPECT_NE(out.error().str().find(GetParam().message), std::string::npos) << out.error().str();
  EXPECT_EQ(f.disk.writes(), before);
  EXPECT_EQ(f.Bytes(kComm), kCommBefore);
  EXPECT_EQ(*f.disk.Read("/etc/passwd"), "root:x:0:0\n");
}

INSTANTIATE_TEST_SUITE_P(
    BadInput, ApplyRefusesPath,
    testing::Values(BadPath{"../../etc/passwd", "contains '..'; paths must stay inside site-packages"},
                    BadPath{"/etc/passwd", "is absolute; paths must be relative to site-packages"},
                    BadPath{"evil/passwd", "is a symlink"}, BadPath{"ro.py", "ro.py: file is read-only"},
                    BadPath{"rodir/a.py", "rodir/a.py: its directory is read-only"},
                    BadPath{"missing.py", "missing.py: no such file"}));

TEST(Apply, SameRuleTwiceIsRefusedByTheStore) {
  Fixture f;
  StateDir state(f.disk, kSite);
  ASSERT_TRUE(ApplyChanges(state, {FlashInferChange()}, {}));
  Result<ApplyOutcome> again = ApplyChanges(state, {FlashInferChange()}, {});
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().str(), "rule 'flashinfer-trtllm-allreduce-sm12x' is already applied");
}

// The heart of crash safety: die after every single write, recover, and find every file either
// all original (and nothing recorded) or all patched (and recorded), never a mix, no temp files.
TEST(Crash, AfterEveryWriteOfAnApplyRecoveryRestoresTheOriginals) {
  int total = 0;
  for (int allowed = 0;; ++allowed) {
    Fixture f;
    FaultyDisk faulty(f.disk, allowed);
    StateDir crashing(faulty, kSite);
    bool crashed = false;
    try {
      (void)ApplyChanges(crashing, {FlashInferChange()}, {});
    } catch (const InjectedCrash&) {
      crashed = true;
    }
    StateDir state(f.disk, kSite);
    Result<RecoveryOutcome> rec = Recover(state, {});
    ASSERT_TRUE(rec) << rec.error().str();
    bool recorded = state.LoadManifest()->Find("flashinfer-trtllm-allreduce-sm12x") != nullptr;
    if (recorded) {
      EXPECT_EQ(f.Bytes(kComm), kCommAfter) << "crash after " << allowed;
      EXPECT_EQ(f.Bytes(kHeader), kHeaderAfter) << "crash after " << allowed;
    } else {
      EXPECT_EQ(f.Bytes(kComm), kCommBefore) << "crash after " << allowed;
      EXPECT_EQ(f.Bytes(kHeader), kHeaderBefore) << "crash after " << allowed;
    }
    for (const auto& [path, node] : f.disk.nodes()) {
      EXPECT_FALSE(IsTempName(path.filename().string())) << path << " after " << allowed;
    }
    EXPECT_FALSE(f.disk.Stat(state.journal_path()).exists());
    if (!crashed) {
      total = allowed;
      break;
    }
  }
  // backups dir, 2 backups, journal, 2 files, manifest, journal removal.
  EXPECT_EQ(total, 8);
}

// An apply that dies after the first file was replaced: one file patched, one not, a journal.
void CrashAfterTheFirstFile(Fixture& f) {
  FaultyDisk faulty(f.disk, 5);
  StateDir crashing(faulty, kSite);
  EXPECT_THROW((void)ApplyChanges(crashing, {FlashInferChange()}, {}), InjectedCrash);
}

TEST(Crash, StatusSeesTheHalfDoneApplyInTheJournal) {
  Fixture f;
  CrashAfterTheFirstFile(f);
  StateDir state(f.disk, kSite);
  std::optional<Journal> journal = *state.LoadJournal();
  ASSERT_TRUE(journal.has_value());
  EXPECT_EQ(journal->operation, "apply");
  EXPECT_EQ(journal->rules, std::vector<std::string>{"flashinfer-trtllm-allreduce-sm12x"});
  EXPECT_EQ(f.Bytes(kComm), kCommAfter);  // half done: one file patched, one not
  EXPECT_EQ(f.Bytes(kHeader), kHeaderBefore);
  Result<RecoveryOutcome> rec = Recover(state, {});
  ASSERT_TRUE(rec);
  EXPECT_EQ(rec->restored, std::vector<std::string>{kComm});
  EXPECT_EQ(f.Bytes(kComm), kCommBefore);
}

TEST(Revert, RestoresEveryByteAndDropsTheEntry) {
  Fixture f;
  StateDir state(f.disk, kSite);
  ASSERT_TRUE(ApplyChanges(state, {FlashInferChange()}, {}));
  RevertRequest request;
  request.all = true;
  Result<RevertOutcome> out = RevertEntries(state, request, {});
  ASSERT_TRUE(out) << out.error().str();
  ASSERT_EQ(out->items.size(), 1u);
  EXPECT_EQ(out->items[0].verdict, RevertVerdict::reverted);
  EXPECT_EQ(f.Bytes(kComm), kCommBefore);
  EXPECT_EQ(f.Bytes(kHeader), kHeaderBefore);
  EXPECT_TRUE(state.LoadManifest()->entries.empty());
}

TEST(Revert, RefusesAFileChangedSinceApplyUnlessForced) {
  Fixture f;
  StateDir state(f.disk, kSite);
  ASSERT_TRUE(ApplyChanges(state, {FlashInferChange()}, {}));
  f.disk.AddFile(kSite / kHeader, "// hand edited\n");
  RevertRequest request;
  request.rules = {"flashinfer-trtllm-allreduce-sm12x"};
  Result<RevertOutcome> out = RevertEntries(state, request, {});
  ASSERT_TRUE(out);
  EXPECT_EQ(out->items[0].verdict, RevertVerdict::refused);
  EXPECT_NE(out->items[0].reason.find("changed since archpatch patched it"), std::string::npos);
  EXPECT_EQ(f.Bytes(kComm), kCommAfter);  // nothing of the entry was touched
  EXPECT_EQ(state.LoadManifest()->entries.size(), 1u);
  request.force = true;
  out = RevertEntries(state, request, {});
  ASSERT_TRUE(out);
  EXPECT_EQ(out->items[0].verdict, RevertVerdict::reverted);
  EXPECT_EQ(f.Bytes(kHeader), kHeaderBefore);
  EXPECT_EQ(f.Bytes(kComm), kCommBefore);
}

TEST(Revert, RetiresTheEntryWhenAnUpgradeReplacedTheFiles) {
  Fixture f;
  StateDir state(f.disk, kSite);
  ASSERT_TRUE(ApplyChanges(state, {FlashInferChange()}, {}));
  const std::string upgraded = "supported_major_versions=[9, 10, 12]  # 0.4\n";
  f.disk.AddFile(kSite / kComm, upgraded);
  f.disk.AddFile(kSite / kHeader, "#if __CUDA_ARCH__ >= 900\n#endif\n");
  RevertRequest request;
  request.packages = {"flashinfer-python"};
  request.matches_record = [](const Entry&, const FileRecord&, const std::string&) { return true; };
  Result<RevertOutcome> out = RevertEntries(state, request, {});
  ASSERT_TRUE(out);
  EXPECT_EQ(out->items[0].verdict, RevertVerdict::retired);
  EXPECT_EQ(f.Bytes(kComm), upgraded);  // the new version's file is not overwritten
  EXPECT_TRUE(state.LoadManifest()->entries.empty());
}

TEST(Revert, UnknownRuleOrPackageIsAnError) {
  Fixture f;
  StateDir state(f.disk, kSite);
  RevertRequest request;
  request.rules = {"nope"};
  Result<RevertOutcome> out = RevertEntries(state, request, {});
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().str(), "rule 'nope' is not applied in this environment");
}

TEST(Revert, StackedRulesOnOneFileComeOffNewestFirst) {
  Fixture f;
  StateDir state(f.disk, kSite);
  ASSERT_TRUE(ApplyChanges(state, {FlashInferChange()}, {}));
  RuleChange second;
  second.entry.rule = "second";
  second.entry.distribution = "flashinfer-python";
  second.files.push_back({kComm, Sha256Hex(kCommAfter), kCommAfter + "\ny = 2", {}, nullptr});
  ASSERT_TRUE(ApplyChanges(state, {second}, {}));
  RevertRequest request;
  request.all = true;
  Result<RevertOutcome> out = RevertEntries(state, request, {});
  ASSERT_TRUE(out) << out.error().str();
  ASSERT_EQ(out->items.size(), 2u);
  EXPECT_EQ(out->items[0].rule, "second");
  EXPECT_EQ(f.Bytes(kComm), kCommBefore);
}

TEST(Crash, AfterEveryWriteOfARevertRecoveryCompletesIt) {
  for (int allowed = 0;; ++allowed) {
    Fixture f;
    {
      StateDir state(f.disk, kSite);
      ASSERT_TRUE(ApplyChanges(state, {FlashInferChange()}, {}));
    }
    FaultyDisk faulty(f.disk, allowed);
    StateDir crashing(faulty, kSite);
    RevertRequest request;
    request.all = true;
    bool crashed = false;
    try {
      (void)RevertEntries(crashing, request, {});
    } catch (const InjectedCrash&) {
      crashed = true;
    }
    StateDir state(f.disk, kSite);
    ASSERT_TRUE(Recover(state, {}));
    if (state.LoadManifest()->entries.empty()) {
      EXPECT_EQ(f.Bytes(kComm), kCommBefore) << allowed;
      EXPECT_EQ(f.Bytes(kHeader), kHeaderBefore) << allowed;
    } else {
      EXPECT_EQ(allowed, 0);  // died before the journal: nothing happened
      EXPECT_EQ(f.Bytes(kComm), kCommAfter);
    }
    if (!crashed) break;
  }
}

}  // namespace
}  // namespace archpatch::store

namespace archpatch::store {
namespace {

// Issue 16 item 3: a damaged backup refuses the whole revert before its first write.
TEST(Revert, ADamagedBackupRefusesTheWholeRevertWithNothingWritten) {
  Fixture f;
  StateDir state(f.disk, kSite);
  ASSERT_TRUE(ApplyChanges(state, {FlashInferChange()}, {}));
  const Entry entry = state.LoadManifest()->entries[0];
  f.disk.AddFile(state.dir() / entry.files[0].backup, "damaged");
  RevertRequest request;
  request.all = true;
  request.force = true;
  int before = f.disk.writes();
  try {
    (void)RevertEntries(state, request, {});
    FAIL() << "revert went ahead";
  } catch (const Fatal& e) {
    EXPECT_NE(std::string(e.what()).find("is damaged"), std::string::npos) << e.what();
    EXPECT_EQ(e.exit_code(), 3);
  }
  EXPECT_EQ(f.disk.writes(), before);
  EXPECT_EQ(f.Bytes(kHeader), kHeaderAfter);  // the other file was not restored first
}

// Item 3: a rollback that needs a damaged backup is refused whole; forced, it puts back the rest.
TEST(Crash, ARollbackNeedingADamagedBackupIsRefusedUnlessForced) {
  Fixture f;
  CrashAfterTheFirstFile(f);
  StateDir state(f.disk, kSite);
  Journal journal = **state.LoadJournal();
  f.disk.AddFile(state.dir() / journal.files[0].backup, "damaged");
  EXPECT_EQ(RecoveryProblems(state, journal).size(), 1u);
  int before = f.disk.writes();
  EXPECT_THROW((void)Recover(state, {}), Fatal);
  EXPECT_EQ(f.disk.writes(), before);
  TransactionOptions force;
  force.force_recovery = true;
  Result<RecoveryOutcome> rec = Recover(state, force);
  ASSERT_TRUE(rec) << rec.error().str();
  EXPECT_EQ(rec->skipped.size(), 1u);
  EXPECT_FALSE(f.disk.Stat(state.journal_path()).exists());
  EXPECT_TRUE(f.disk.Stat(state.dir() / "journal.json.damaged").exists());
  EXPECT_EQ(f.Bytes(kComm), kCommAfter);  // its original is lost: left, and named
}

// Item 4: a journal naming a path outside is refused at load, before anything is written.
TEST(Crash, AJournalNamingAPathOutsideIsRefused) {
  Fixture f;
  StateDir state(f.disk, kSite);
  ASSERT_TRUE(state.Create());
  Journal planted{"apply",
                  "t",
                  "now",
                  {"x"},
                  {{"../../etc/passwd", std::string(64, 'a'), std::string(64, 'b'), "backups/" + std::string(64, 'a'),
                    std::nullopt}}};
  ASSERT_TRUE(state.SaveJournal(planted));
  int before = f.disk.writes();
  Result<RecoveryOutcome> rec = Recover(state, {});
  ASSERT_FALSE(rec);
  EXPECT_NE(rec.error().message.find("contains '..'"), std::string::npos) << rec.error().message;
  EXPECT_EQ(f.disk.writes(), before);
}

// Item 15: revert gives back the original's modification time.
TEST(Revert, RestoresTheOriginalsModificationTime) {
  Fixture f;
  StateDir state(f.disk, kSite);
  const int64_t original = f.disk.Stat(kSite / kComm).mtime_ns;
  ASSERT_TRUE(ApplyChanges(state, {FlashInferChange()}, {}));
  EXPECT_NE(f.disk.Stat(kSite / kComm).mtime_ns, original);
  EXPECT_EQ(state.LoadManifest()->entries[0].files[0].original_mtime_ns, original);
  RevertRequest request;
  request.all = true;
  ASSERT_TRUE(RevertEntries(state, request, {}));
  EXPECT_EQ(f.disk.Stat(kSite / kComm).mtime_ns, original);
}

}  // namespace
}  // namespace archpatch::store
