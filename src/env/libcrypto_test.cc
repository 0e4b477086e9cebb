#include "env/libcrypto.h"

#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "env/digest.h"

namespace archpatch::env {
namespace {

bool LibcryptoMapped() {
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);) {
    if (line.find("/libcrypto.so") != std::string::npos) return true;
  }
  return false;
}

// CTest runs each test in a process of its own: this one starts with nothing opened.
TEST(Libcrypto, IsOpenedAtTheFirstDigestAndNotBefore) {
  if (LibcryptoMapped()) GTEST_SKIP() << "an earlier test of this process computed a digest";
  EXPECT_TRUE(LoadLibcrypto());
  EXPECT_TRUE(LibcryptoMapped());
  // FIPS 180-2's test vector, through the forwarded EVP_* calls, one-shot and streamed.
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  Sha256Stream stream;
  stream.Update("a");
  stream.Update("bc");
  EXPECT_EQ(stream.UrlsafeB64(), Sha256UrlsafeB64("abc"));
  EXPECT_EQ(Sha256UrlsafeB64("abc"), "ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0");
}

}  // namespace
}  // namespace archpatch::env
