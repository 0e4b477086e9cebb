#!/usr/bin/env bash
# CI: examples/Dockerfile's steps after its FROM, run as docker would run them (ARG defaults,
# COPY from the build context, each RUN with /bin/sh -c) against a scratch root (ARG ROOT), as no
# container daemon is usable here. With the example package and rule it must pass and leave the
# package patched; with a rule that does not fit (exit 3) the build must fail.
#   tests/install/dockerfile_test.sh TARBALL
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
tarball=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
work=$(mktemp -d "${TMPDIR:-/tmp}/archpatch-docker.XXXXXX")
trap 'rm -rf "$work"' EXIT

# build ROOT [ARG=VALUE...]: the Dockerfile's instructions after FROM, in a subshell.
build() {
  local root=$1; shift
  mkdir -p "$root/tmp"
  (
    declare -A given=()
    for kv in "$@"; do given[${kv%%=*}]=${kv#*=}; done
    export ROOT=$root
    local line instruction rest
    # One instruction per line: continuation lines joined, comments and blank lines dropped.
    sed -e '/^[[:space:]]*#/d' "$repo/examples/Dockerfile" | sed -e ':a' -e '/\\$/N; s/\\\n//; ta' |
      sed -n '/^FROM /,$p' | tail -n +2 >"$root.steps"
    while IFS= read -r line; do
      [[ -n ${line// /} ]] || continue
      instruction=${line%% *}; rest=${line#* }
      case $instruction in
        ARG)
          local name=${rest%%=*} value=${rest#*=}
          value=${value#\"}; value=${value%\"}
          [[ $rest == *=* ]] || value=""
          [[ -v given[$name] ]] && value=${given[$name]}
          [[ $name == ROOT ]] && value=$root
          export "$name=$value" ;;
        COPY)
          local src dest
          read -r src dest <<<"$(eval "echo $rest")"
          cp "$tarball_dir/$src" "$root$dest" ;;
        RUN)
          echo "RUN ${rest:0:100}..."
          sh -c "$rest" || { echo "step failed (exit $?)"; exit 1; } ;;
        *) echo "dockerfile_test: unhandled instruction $instruction" >&2; exit 2 ;;
      esac
    done <"$root.steps"
  )
}
tarball_dir=$(dirname "$tarball")
tarball_name=$(basename "$tarball")
failures=0

cp -R "$repo/examples/minipkg/site-packages" "$work/site"
echo "== the example rule: the build passes, the package is patched"
if build "$work/root" "ARCHPATCH_TARBALL=$tarball_name" "SITE_PACKAGES=$work/site" \
     "ARCHPATCH_RULES=$work/root/opt/archpatch/share/doc/archpatch/examples/minipkg/rules/minifi-allreduce.yaml"; then
  if cmp -s "$repo/examples/minipkg/site-packages/minifi/jit/comm.py" "$work/site/minifi/jit/comm.py" ||
     [[ ! -L $work/root/usr/local/bin/archpatch ]]; then
    echo "FAIL: the build passed but left the package unpatched or archpatch uninstalled"; failures=$((failures + 1))
  fi
  "$work/root/usr/local/bin/archpatch" status --site-packages "$work/site" | grep -q minifi-allreduce ||
    { echo "FAIL: status after the image build lacks the rule"; failures=$((failures + 1)); }
else
  echo "FAIL: the build failed"; failures=$((failures + 1))
fi
echo "== again on the patched package: exit 1 (nothing to do) passes"
build "$work/root2" "ARCHPATCH_TARBALL=$tarball_name" "SITE_PACKAGES=$work/site" \
  "ARCHPATCH_RULES=$repo/examples/minipkg/rules/minifi-allreduce.yaml" || { echo "FAIL: nothing to do failed the build"; failures=$((failures + 1)); }
echo "== the shipped FlashInfer rules on a package they do not fit: exit 3 fails the build"
cp -R "$repo/examples/minipkg/site-packages" "$work/site3"
if build "$work/root3" "ARCHPATCH_TARBALL=$tarball_name" "SITE_PACKAGES=$work/site3"; then
  echo "FAIL: the build passed although apply refused"; failures=$((failures + 1))
fi
echo "== $([[ $failures == 0 ]] && echo PASS || echo "FAIL ($failures)")"
((failures == 0))
