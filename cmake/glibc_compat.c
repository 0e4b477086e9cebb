/* libarchpatch-glibc-compat.so, for the relocatable tarball only (cmake/bundle_libs.cmake).
 * Debian 12's libstdc++ and libLLVM call arc4random, which glibc has only from 2.36; the tarball
 * marks their need for GLIBC_2.36 weak (scripts/elf_weak_versions.py) and bin/archpatch loads this
 * library, which defines the arc4random family unversioned, so the tree also starts on glibc
 * 2.34/2.35 (Ubuntu 22.04). Where glibc has the functions either definition may be bound; both
 * draw from the kernel's getrandom(2). */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/random.h>

void arc4random_buf(void *buf, size_t n) {
  unsigned char *p = buf;
  while (n > 0) {
    ssize_t got = getrandom(p, n, 0);
    if (got < 0) {
      if (errno == EINTR) continue;
      abort(); /* as glibc's: no randomness is not a recoverable state */
    }
    p += got;
    n -= (size_t)got;
  }
}

uint32_t arc4random(void) {
  uint32_t value;
  arc4random_buf(&value, sizeof value);
  return value;
}

uint32_t arc4random_uniform(uint32_t bound) {
  if (bound < 2) return 0;
  const uint32_t skip = -bound % bound; /* 2^32 mod bound: values below it would bias the result */
  for (;;) {
    uint32_t r = arc4random();
    if (r >= skip) return r % bound;
  }
}
