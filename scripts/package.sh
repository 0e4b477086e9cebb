#!/usr/bin/env bash
# Builds the archpatch target (in build/, as scripts/bootstrap.sh does) and packages it with CPack
# (cmake/packaging.cmake), then checks what it made:
#   OUT/archpatch_VERSION_amd64.deb              Debian 12; Depends from dpkg-shlibdeps
#   OUT/archpatch-VERSION-linux-x86_64.tar.gz    relocatable: bin/ lib/ share/; glibc >= 2.34
# The checks fail the script: a tarball ELF file needing a GLIBC_ symbol version newer than
# GLIBC_MAX, a library not resolved inside lib/ (glibc's and libgcc_s aside), a missing RUNPATH, debug info
# left in the binary, a .deb without Depends, a lib/ without libclang (opened at run time, so no
# library names it) or with one that needs a library outside lib/. Prints each package's size (docs/deploy.md).
#
#   scripts/package.sh [OUT]        default OUT: build/packages; BUILD_DIR overrides build/
set -euo pipefail
cd "$(dirname "$0")/.."
readonly GLIBC_MAX=2.34
build=${BUILD_DIR:-build}
out=$(mkdir -p "${1:-$build/packages}" && cd "${1:-$build/packages}" && pwd)
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD}
# With -g, ccache also hashes the folder the compiler runs in; a fresh clone elsewhere would
# rebuild everything (the debug info of a reused object names the first checkout's folder).
export CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}

fail() { echo "package: FAILED: $*" >&2; exit 1; }

if [[ ! -f $build/CMakeCache.txt ]]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
cmake --build "$build" --target archpatch
rm -f "$out"/archpatch[_-]*.deb "$out"/archpatch-*.tar.gz
(cd "$build" && cpack -G "DEB;TGZ" -B "$out" >"$out/cpack.log") || { cat "$out/cpack.log" >&2; fail "cpack"; }
rm -rf "$out/_CPack_Packages"
deb=$(ls "$out"/archpatch_*.deb)
tarball=$(ls "$out"/archpatch-*.tar.gz)

# The .deb: Depends declared, the binary and data where the lookup expects them.
depends=$(dpkg-deb -f "$deb" Depends)
[[ -n $depends ]] || fail "$deb declares no Depends"
for lib in libclang1-19 libyaml-cpp libfmt libspdlog libboost-program-options libssl libelf libzstd; do
  [[ $depends == *"$lib"* ]] || fail "$deb: Depends lacks $lib: $depends"
done
files=$(dpkg-deb -c "$deb")
for f in ./usr/bin/archpatch ./usr/share/archpatch/rules/features.yaml ./usr/share/archpatch/rules/caches.yaml \
         ./usr/share/man/man1/archpatch.1 ./usr/share/bash-completion/completions/archpatch; do
  grep -q " $f\$" <<<"$files" || fail "$deb lacks $f"
done

# The tarball, unpacked: glibc symbol versions, libraries, RUNPATH, no debug info.
check=$(mktemp -d)
trap 'rm -rf "$check"' EXIT
tar -C "$check" -xf "$tarball"
root=$(ls -d "$check"/archpatch-*)
elves=$(find "$root/bin" "$root/lib" -type f)
# The newest GLIBC_ version any file needs (weak needs aside: lib/libarchpatch-glibc-compat.so
# supplies their symbols, which the second check makes sure of).
newest=$(for f in $elves; do objdump -p "$f" | awk '$2 == "0x00" && $4 ~ /^GLIBC_/ { sub("GLIBC_", "", $4); print $4 }'; done | sort -uV | tail -1)
[[ $(printf '%s\n%s\n' "$newest" "$GLIBC_MAX" | sort -V | tail -1) == "$GLIBC_MAX" ]] ||
  fail "the tarball needs GLIBC_$newest, newer than $GLIBC_MAX: $(for f in $elves; do
    objdump -p "$f" | grep -q "0x00 [0-9]* GLIBC_$newest\$" && echo "${f##*/}"; done)"
weak=$(for f in $elves; do objdump -T "$f" | awk '/\*UND\*/ && $(NF-1) ~ /GLIBC_/ { print $(NF-1), $NF }'; done |
  tr -d '()' | awk -v max="$GLIBC_MAX" '{ split(substr($1, 7), v, "."); split(max, m, ".");
    if (v[1] > m[1] || (v[1] == m[1] && v[2] > m[2])) print $2 }' | sort -u)
supplied=$(objdump -T "$root/lib/libarchpatch-glibc-compat.so" | awk '$4 == ".text" { print $NF }')
for sym in $weak; do
  grep -qx "$sym" <<<"$supplied" || fail "$sym needs a glibc newer than $GLIBC_MAX and the compat library lacks it"
done
outside=$(env -u LD_LIBRARY_PATH ldd "$root/bin/archpatch" |
  awk '/not found/ || ($3 ~ /^\// && index($3, "'"$root"'/") != 1) { print $1 }' |
  grep -Ev '^(libc|libm|libmvec|libpthread|libdl|librt|libresolv|libgcc_s)\.so' || true)
[[ -z $outside ]] || fail "resolved outside lib/: $outside"
# libclang is opened, not linked (src/cuda/libclang.h): lib/ must hold it and what it needs.
libclang=$(ls "$root"/lib/libclang-*.so.* 2>/dev/null | head -1 || true)
[[ -n $libclang ]] || fail "lib/ lacks libclang"
outside=$(env -u LD_LIBRARY_PATH ldd "$libclang" |
  awk '/not found/ || ($3 ~ /^\// && index($3, "'"$root"'/") != 1) { print $1 }' |
  grep -Ev '^(libc|libm|libmvec|libpthread|libdl|librt|libresolv|libgcc_s)\.so' || true)
[[ -z $outside ]] || fail "${libclang##*/} needs libraries resolved outside lib/: $outside"
readelf -d "$root/bin/archpatch" | grep -q 'RUNPATH.*\[\$ORIGIN/../lib\]' || fail "bin/archpatch has no RUNPATH \$ORIGIN/../lib"
if readelf -S "$root/bin/archpatch" | grep -q '\.debug_'; then fail "bin/archpatch keeps debug info"; fi

size() { du -h --apparent-size "$1" | cut -f1; }
echo "package: $deb: $(size "$deb") (installed $(dpkg-deb -f "$deb" Installed-Size) KiB)"
echo "package:   Depends: $depends"
echo "package: $tarball: $(size "$tarball") (unpacked $(du -sh --apparent-size "$root" | cut -f1): bin/archpatch $(size "$root/bin/archpatch"), lib/ $(du -sh --apparent-size "$root/lib" | cut -f1) in $(ls "$root/lib" | wc -l) libraries)"
echo "package:   newest glibc version needed: GLIBC_$newest (at most $GLIBC_MAX); from lib/libarchpatch-glibc-compat.so: $(echo $weak)"
