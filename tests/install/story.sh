#!/usr/bin/env bash
# story.sh PREFIX: what a user runs from an installed archpatch tree (PREFIX/bin/archpatch, an
# install, an unpacked tarball or an unpacked .deb's usr/), with no ARCHPATCH_* variable set:
#   --version names PREFIX/share/archpatch as its data; rules list and show find the shipped rules,
#   rules test passes every shipped fixture, caches list reads caches.yaml, audit of the example
#   (share/doc/archpatch/examples/minipkg, copied) finds its gates with the hazard checks
#   (features.yaml); apply, status, apply again, revert; every byte back.
# Exit 0 when every step did what it should; prints each step.
set -euo pipefail
prefix=$(cd "$1" && pwd)
bin=$prefix/bin/archpatch
# No override may help: the tree must find everything from the binary's own location.
while IFS= read -r name; do unset "$name"; done < <(compgen -e | grep '^ARCHPATCH_' || true)

work=$(mktemp -d "${TMPDIR:-/tmp}/archpatch-story.XXXXXX")
trap 'rm -rf "$work"' EXIT
example=$prefix/share/doc/archpatch/examples/minipkg
cp -R "$example/site-packages" "$work/site"
export MINIFI_WORKSPACE_BASE=$work/home
failures=0

# step WANT_RC WHAT CMD...: runs CMD from a folder unrelated to the tree, checks its exit code.
step() {
  local want=$1 what=$2 rc=0
  shift 2
  (cd "$work" && "$@") >"$work/out" 2>&1 || rc=$?
  if ((rc == want)); then
    echo "ok   $what (exit $rc)"
  else
    echo "FAIL $what: exit $rc, expected $want:"; sed 's/^/     | /' "$work/out"
    failures=$((failures + 1))
  fi
}
# output_has TEXT WHAT: the last step's output contains TEXT.
output_has() {
  grep -qF -- "$1" "$work/out" && return 0
  echo "FAIL $2: no '$1' in:"; sed 's/^/     | /' "$work/out"; failures=$((failures + 1))
}
# output_lacks TEXT WHAT: the last step's output does not contain TEXT.
output_lacks() {
  grep -qF -- "$1" "$work/out" || return 0
  echo "FAIL $2: '$1' in:"; sed 's/^/     | /' "$work/out"; failures=$((failures + 1))
}
tree_sums() { (cd "$work/site" && find . -path ./.archpatch -prune -o -type f -print0 | sort -z | xargs -0 sha256sum); }

step 0 "--version" "$bin" --version
output_has "data: $prefix/share/archpatch (" "--version names the tree's own data"
step 0 "rules list" "$bin" rules list
output_has "flashinfer-trtllm-allreduce-sm12x" "rules list shows the shipped rules"
step 0 "rules show by id" "$bin" rules show sglang-flashinfer-allreduce-fusion-sm12x
step 0 "rules test (every shipped fixture)" "$bin" rules test
step 0 "caches list (caches.yaml)" "$bin" caches list
output_has "flashinfer" "caches list names the shipped cache kinds"
step 1 "audit --arch sm_120 (gates found, hazards on)" "$bin" audit --arch sm_120 "$work/site"
output_has "allreduce" "audit reports the example's gates"
output_lacks "libclang could not be loaded" "audit opens libclang for the kernel checks"
tree_sums >"$work/sums.before"
step 0 "apply" "$bin" apply --rule "$example/rules/minifi-allreduce.yaml" --site-packages "$work/site"
step 0 "status" "$bin" status --site-packages "$work/site"
step 1 "apply again: nothing to do" "$bin" apply --rule "$example/rules/minifi-allreduce.yaml" --site-packages "$work/site"
step 0 "revert" "$bin" revert --all --site-packages "$work/site"
if tree_sums | diff -q "$work/sums.before" - >/dev/null; then
  echo "ok   every byte back after revert"
else
  echo "FAIL files differ after revert"; failures=$((failures + 1))
fi
((failures == 0))
