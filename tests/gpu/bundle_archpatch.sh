#!/usr/bin/env bash
# bundle_archpatch.sh DIR [BINARY]: packs the archpatch binary and the shared libraries it loads
# into DIR/archpatch.tar.xz (archpatch-bundle/{archpatch,bin.real,lib/}), for a machine of the
# same processor that lacks Debian 12's libraries (the lent GPU machine). glibc and the C++
# runtime are left out: newer ones there run this binary, and an older libstdc++ on
# LD_LIBRARY_PATH would break that machine's torch. archpatch-bundle/archpatch is a wrapper that
# sets LD_LIBRARY_PATH for archpatch alone.
set -euo pipefail
dest=$1
binary=${2:-$(cd "$(dirname "$0")/../.." && pwd)/build/archpatch}
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/archpatch-bundle/lib" "$dest"
strip -o "$stage/archpatch-bundle/bin.real" "$binary"
ldd "$binary" | awk '/=> \// {print $3}' | while read -r lib; do
  case $(basename "$lib") in
    libc.so*|libm.so*|libpthread.so*|libdl.so*|librt.so*|ld-linux*|libstdc++*|libgcc_s*) ;;
    *) cp -L "$lib" "$stage/archpatch-bundle/lib/" ;;
  esac
done
cat >"$stage/archpatch-bundle/archpatch" <<'WRAPPER'
#!/bin/sh
here=$(dirname "$(readlink -f "$0")")
LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "$here/bin.real" "$@"
WRAPPER
chmod +x "$stage/archpatch-bundle/archpatch"
tar -C "$stage" -cJf "$dest/archpatch.tar.xz" archpatch-bundle
ls -la "$dest/archpatch.tar.xz"
