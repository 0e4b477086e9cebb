#!/usr/bin/env bash
# Installs archpatch's Debian 12 build dependencies (as root, or with sudo) and builds the
# archpatch binary into build/ (the target alone: scripts/test.sh builds the tests). Safe to run
# again: apt and cmake only do what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
# ccache (when installed) may reuse objects across clones of the tree.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD}
# With -g, ccache also hashes the folder the compiler runs in; a fresh clone elsewhere would
# rebuild everything (the debug info of a reused object names the first checkout's folder).
export CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}

packages=$(grep -v '^#' scripts/packages.txt)
missing=$(for p in $packages; do dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || echo "$p"; done)
if [ -n "$missing" ]; then
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -qq
  # shellcheck disable=SC2086
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing
fi

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build --target archpatch
