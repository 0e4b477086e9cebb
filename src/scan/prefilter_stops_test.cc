// The prefilter reads only the names that hold a trigger: the block search must stop where the
// byte-at-a-time test does, and every name the prefilter looks for must hold a trigger.
#include "scan/prefilter_stops.h"

#include <filesystem>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "cuda/real_trees_test_util.h"
#include "cuda/runtime_gates.h"
#include "scan/prefilter.h"

namespace archpatch::scan {
namespace {

namespace fs = std::filesystem;

// Text dense in the triggers' letters, in both cases, the skips' bytes and bytes no trigger holds.
std::string RandomText(std::mt19937& rng, size_t length) {
  static constexpr std::string_view kBytes = "smcajnviorhpbSMCAJNVIORHPB#\"/ _x\n\x80\xe9";
  std::uniform_int_distribution<size_t> pick(0, kBytes.size() - 1);
  std::string text;
  for (size_t i = 0; i < length; ++i) text += kBytes[pick(rng)];
  return text;
}

size_t FirstStopOneByteAtATime(std::string_view s, size_t from) {
  while (from < s.size() && !IsPrefilterStop(s, from)) ++from;
  return from;
}

TEST(PrefilterStops, TheBlockSearchStopsWhereTheByteTestDoes) {
  std::mt19937 rng(14);
  for (size_t length = 0; length < 80; ++length) {
    for (int sample = 0; sample < 20; ++sample) {
      const std::string text = RandomText(rng, length);
      for (size_t from = 0; from <= length; ++from) {
        ASSERT_EQ(NextPrefilterStop(text, from), FirstStopOneByteAtATime(text, from))
            << "from " << from << " in \"" << text << "\"";
      }
    }
  }
}

TEST(PrefilterStops, FindsATriggerAcrossABlockEndAndAtTheLastBytes) {
  const std::string filler(15, 'x');
  EXPECT_EQ(NextPrefilterStop(filler + "Sm90xxxxxxxxxxxxxxxxxx", 0), 15u);   // `Sm` across bytes 15-16
  EXPECT_EQ(NextPrefilterStop(filler + "xxxxxxxxxxxxxxxxxxxarCH", 0), 35u);  // a triple in the last bytes
  EXPECT_EQ(NextPrefilterStop(filler + "xxxxxxxxxxxxxxxxxxxxxaR", 0), 38u);  // no whole triple: the end
  EXPECT_EQ(NextPrefilterStop("GMMA::Major::K value", 0), 7u);               // `aj` of Major
}

TEST(PrefilterStops, EveryNameThePrefilterLooksForHoldsATrigger) {
  for (std::string_view p : kArchPrefixes) EXPECT_TRUE(HoldsTrigger(p)) << p;
  for (std::string_view n : kArchNames) EXPECT_TRUE(HoldsTrigger(n)) << n;
  for (std::string_view n : kNvTargetNames) EXPECT_TRUE(HoldsTrigger(n)) << n;
  // IsCapabilityName accepts only a name holding one of the needles.
  for (std::string_view needle : cuda::CapabilityNeedles()) EXPECT_TRUE(HoldsTrigger(needle)) << needle;
  for (std::string_view name : {"GMMA", "value", "index", "stride", "cutlass"})
    EXPECT_FALSE(HoldsTrigger(name)) << name;
}

// A -D whose value names an arch macro makes the prefilter read every name; with a name no file
// holds, what it decides must be what the trigger search decides, file by file.
void ExpectTheSameAsReadingEveryName(const std::string& root, size_t& files) {
  cuda::MacroEnv every;
  every.defines["ARCHPATCH_TEST_NAME_NO_FILE_HOLDS"] = "__CUDA_ARCH__";
  const Prefilter by_name(every), by_trigger(cuda::MacroEnv{});
  files += cuda::ForEachCxxFile(root, [&](const fs::path& path, const std::string& text) {
    const cuda::GateKinds a = by_name.Check(text), b = by_trigger.Check(text);
    EXPECT_EQ(a.directives, b.directives) << path;
    EXPECT_EQ(a.nv_target, b.nv_target) << path;
    EXPECT_EQ(a.runtime, b.runtime) << path;
  });
}

TEST(PrefilterStops, DecideAsReadingEveryNameOverTheFixturesAndRealTrees) {
  size_t files = 0;
  ExpectTheSameAsReadingEveryName(std::string(ARCHPATCH_SOURCE_DIR) + "/tests/fixtures", files);
  EXPECT_GT(files, 10u);
  const std::vector<std::string> roots = cuda::RealTreeRoots();
  for (const std::string& root : roots) ExpectTheSameAsReadingEveryName(root, files);
  if (roots.empty()) GTEST_SKIP() << "fixtures only: " << cuda::kNoRealTrees;
}

}  // namespace
}  // namespace archpatch::scan
