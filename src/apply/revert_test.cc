// Revert and verify on FakeDisk: byte for byte back, under the exclusive lock; verify and the
// proof under the shared one; the proof's spans from the manifest.
#include "apply/revert.h"

#include <cstdlib>

#include <gtest/gtest.h>

#include "apply/apply.h"
#include "apply/verify.h"
#include "env/digest.h"

namespace archpatch::apply {
namespace {

const std::filesystem::path kSite = "/env/site-packages";
const std::string kFile = "pkg/k.cuh";
const std::string kBefore = "#if (__CUDA_ARCH__ >= 900) && (__CUDA_ARCH__ < 1200)\nx();\n#endif\n";

plan::RulePlan DropBound() {
  const std::string old = " && (__CUDA_ARCH__ < 1200)";
  const size_t at = kBefore.find(old);
  plan::TextEdit e{at, at + old.size(), old, "", 1, static_cast<int>(at) + 1, 0, "replace", "drop the bound"};
  plan::FilePlan file{kFile, env::Sha256Hex(kBefore), "", {e}};
  file.sha256_after = env::Sha256Hex(plan::ApplyEdits(kBefore, file));
  plan::RulePlan rule;
  rule.rule_id = "drop";
  rule.distribution = "pkg";
  rule.root = kSite.string();
  rule.targets = {"sm_120"};
  rule.files = {file};
  return rule;
}

using Spans = std::vector<std::pair<size_t, size_t>>;
Spans Pairs(const std::vector<ByteSpan>& spans) {
  Spans out;
  for (const ByteSpan& s : spans) out.emplace_back(s.begin, s.end);
  return out;
}

struct Fixture {
  std::vector<std::string> events;
  store::FakeDisk disk;
  RecordingLocker locker{events};
  env::Environment env;
  Fixture() {
    // Applying a CUDA edit assesses it against the feature table.
    setenv("ARCHPATCH_DATA_DIR", ARCHPATCH_SOURCE_DIR, 1);  // the source tree holds rules/
    disk.AddFile(kSite / kFile, kBefore);
    env.site_packages = kSite;
    ApplyRequest req;
    req.plan = plan::EditPlan{kSite.string(), {DropBound()}};
    req.env = env;
    req.store.clear_caches = false;
    EXPECT_TRUE(Apply(disk, locker, req).changed());
    events.clear();
  }
};

TEST(Revert, PutsEveryByteBackUnderTheExclusiveLock) {
  Fixture f;
  ASSERT_NE(*f.disk.Read(kSite / kFile), kBefore);
  store::RevertRequest all;
  all.all = true;
  RevertReport r = Revert(f.disk, f.locker, f.env, all, {false, {}, {}});
  EXPECT_TRUE(r.changed());
  EXPECT_FALSE(r.refused());
  EXPECT_EQ(r.messages, (std::vector<std::string>{"reverted rule 'drop': 1 file(s) restored"}));
  EXPECT_EQ(*f.disk.Read(kSite / kFile), kBefore);
  EXPECT_EQ(f.events, (std::vector<std::string>{"lock exclusive", "unlock"}));
}

TEST(Revert, AnUnknownRuleIsAnInputError) {
  Fixture f;
  store::RevertRequest request;
  request.rules = {"nope"};
  EXPECT_THROW(Revert(f.disk, f.locker, f.env, request, {false, {}, {}}), UsageError);
}

TEST(Verify, TheManifestRecordsEachEditsSpanAndTheProofUsesIt) {
  Fixture f;
  store::StateDir state(f.disk, kSite);
  const store::Manifest manifest = *state.LoadManifest();
  const store::EditRecord& e = manifest.entries[0].files[0].edits[0];
  ASSERT_TRUE(e.spanned);
  EXPECT_EQ(kBefore.substr(e.begin, e.end - e.begin), e.before);
  EXPECT_EQ(Pairs(EditedSpans(kBefore, {e})), (Spans{{e.begin, e.end}}));
}

TEST(Verify, RecordedSpansAreExactWhereTheLineHoldsTheTextTwice) {
  const std::string original = "x = f([9], [9])\n";
  store::EditRecord second{1, "[9]", "[9, 12]", true, 11, 14};
  EXPECT_EQ(Pairs(EditedSpans(original, {second})), (Spans{{11, 14}}));
  store::EditRecord old_manifest{1, "[9]", "[9, 12]"};  // no span: found from the line's start
  EXPECT_EQ(Pairs(EditedSpans(original, {old_manifest})), (Spans{{6, 9}}));
}

TEST(Verify, RecordsAndProofReadUnderTheSharedLock) {
  Fixture f;
  VerifyReport v = VerifyRecords(f.disk, f.locker, f.env, {});
  EXPECT_FALSE(v.drift);
  EXPECT_EQ(f.events, (std::vector<std::string>{"lock shared", "unlock"}));
  f.events.clear();
  hazard::ProofOptions o;
  o.engine = hazard::ProofEngine::kLibclang;
  o.arches = {*arch::ParseArch("sm_90"), *arch::ParseArch("sm_120")};
  PlanProof proof = ProveRules(f.disk, f.locker, f.env, {}, o);
  ASSERT_EQ(proof.files.size(), 1u);
  EXPECT_TRUE(proof.files[0].ok) << ToJson(proof).dump(2);
  EXPECT_EQ(f.events, (std::vector<std::string>{"lock shared", "unlock"}));
}

// RECORD's half of verify reads through the Disk: a file archpatch patched is "patched" with its
// rule, one edited by hand is drift, one removed is missing; a file as RECORD says is not listed.
TEST(Verify, RecordFilesAreReadThroughTheDiskAndToldApart) {
  Fixture f;
  const std::string kept = "def f():\n    return 1\n", edited = "def g():\n    return 2\n";
  f.disk.AddFile(kSite / "pkg/kept.py", kept);
  f.disk.AddFile(kSite / "pkg/edited.py", "def g():\n    return 3\n");  // changed by hand
  env::Distribution dist;
  dist.normalized_name = "pkg";
  dist.version = "1.0";
  dist.root = kSite;
  auto row = [](const std::string& path, const std::string& bytes) {
    return env::RecordEntry{path, "sha256", env::Sha256UrlsafeB64(bytes), bytes.size()};
  };
  dist.record = {row(kFile, kBefore), row("pkg/kept.py", kept), row("pkg/edited.py", edited),
                 row("pkg/gone.py", "x = 1\n")};
  f.env.distributions = {dist};
  VerifyReport v = VerifyRecords(f.disk, f.locker, f.env, {&f.env.distributions[0]});
  ASSERT_EQ(v.distributions.size(), 1u);
  const DistributionCheck& d = v.distributions[0];
  EXPECT_EQ(d.files, 4u);
  std::vector<std::string> seen;
  for (const RecordProblem& p : d.problems) seen.push_back(p.path + " " + p.state + " " + p.rule);
  EXPECT_EQ(seen,
            (std::vector<std::string>{"pkg/edited.py modified ", "pkg/gone.py missing ", kFile + " patched drop"}));
  EXPECT_TRUE(v.drift);
  EXPECT_EQ(f.events, (std::vector<std::string>{"lock shared", "unlock"}));
}

}  // namespace
}  // namespace archpatch::apply
