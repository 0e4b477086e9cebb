#include "util/lazy_library.h"

#include <string>

#include <gtest/gtest.h>

namespace archpatch {
namespace {

// zlib stands for libclang and libcrypto: a library every Debian system has, which this test
// binary does not link.
TEST(LazyLibrary, OpensTheFirstNameThatLoadsOnceAndForwardsToIt) {
  int opened = 0;
  LazyLibrary zlib("zlib", {"libnot-a-library.so.1", "libz.so.1"}, "Debian: apt-get install zlib1g", [&] { ++opened; });
  ASSERT_TRUE(zlib.Load()) << zlib.Load().error().message;
  EXPECT_TRUE(zlib.Load());
  EXPECT_EQ(opened, 1);
  using Version = const char* (*)();
  const std::string version = reinterpret_cast<Version>(zlib.Symbol("zlibVersion"))();
  EXPECT_EQ(version.substr(0, 2), "1.") << version;
}

TEST(LazyLibrary, AMissingLibrarySaysWhichAndHowToInstallIt) {
  LazyLibrary missing("libexample", {"libnot-a-library.so.1"}, "Debian: apt-get install libexample1");
  const Status loaded = missing.Load();
  ASSERT_FALSE(loaded);
  EXPECT_NE(loaded.error().message.find("libexample could not be loaded"), std::string::npos) << loaded.error().message;
  EXPECT_NE(loaded.error().message.find("libnot-a-library.so.1"), std::string::npos) << loaded.error().message;
  EXPECT_NE(loaded.error().message.find("apt-get install libexample1"), std::string::npos) << loaded.error().message;
  EXPECT_DEATH(missing.Symbol("anything"), "libexample could not be loaded");
}

TEST(LazyLibrary, AFunctionTheLibraryLacksEndsTheProgramWithItsName) {
  LazyLibrary zlib("zlib", {"libz.so.1"}, "Debian: apt-get install zlib1g");
  EXPECT_DEATH(zlib.Symbol("no_such_function_in_zlib"), "libz.so.1 lacks no_such_function_in_zlib");
}

}  // namespace
}  // namespace archpatch
