#!/usr/bin/env bash
# bundle_archpatch.sh DIR: scripts/package.sh's relocatable tarball (bin/, lib/ with every library
# but glibc's, share/; RUNPATH $ORIGIN/../lib), recompressed with xz into DIR/archpatch.tar.xz so
# that it fits what the device tool carries (64 MiB; the .tar.gz is about 81 MB). On the GPU
# machine, tests/gpu/run_minipkg.sh --tarball DIR/archpatch.tar.xz unpacks it into a fresh folder
# and runs the example's story with it (tests/gpu/README.md).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
dest=$1
"$repo/scripts/package.sh" "$repo/build/packages"
mkdir -p "$dest"
gunzip -c "$repo"/build/packages/archpatch-*-linux-*.tar.gz | xz -T0 -6 >"$dest/archpatch.tar.xz"
ls -la "$dest/archpatch.tar.xz"
