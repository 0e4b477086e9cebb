#!/usr/bin/env bash
# Builds the libFuzzer targets with clang-19 into build-fuzz/ and runs each for a bounded time.
set -euo pipefail
cd "$(dirname "$0")/.."
# ccache (when installed) may reuse objects across clones of the tree.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD}
# With -g, ccache also hashes the folder the compiler runs in; a fresh clone elsewhere would
# rebuild everything (the debug info of a reused object names the first checkout's folder).
export CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}
# Twelve targets at 20 s each, run side by side: the fuzzing step of CI takes about two minutes on
# two cores.
seconds=${FUZZ_SECONDS:-20}
CC=clang-19 CXX=clang++-19 cmake -S . -B build-fuzz -G Ninja -DARCHPATCH_FUZZ=ON \
  -DARCHPATCH_TESTS=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build-fuzz --target fuzzers
# The targets run side by side, as many at a time as there are cores (at most four: each takes
# about 0.5 GB); the step's wall time divides by that number.
parallel=$(nproc); [ "$parallel" -gt 4 ] && parallel=4
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
run_target() {
  local target=$1 name work corpus fixtures s
  name=$(basename "$target")
  corpus=fuzz/corpus/${name#fuzz_}
  work=$(mktemp -d)
  [ -d "$corpus" ] && cp -r "$corpus"/. "$work"/
  # The scanners' test fixtures are seeds too (copied flat; they stay where the tests read them).
  fixtures=tests/fixtures/${name#fuzz_}
  [ -d "$fixtures" ] && find "$fixtures" -type f -size -64k -exec cp -t "$work" {} + 2>/dev/null || true
  # Input parsers: the project's own rules, caches table and RECORD files.
  local seeds=()
  case ${name#fuzz_} in
    rule) seeds=(rules tests/fixtures/rules examples/minipkg/rules) ;;
    state) seeds=(rules/caches.yaml) ;;
    record) seeds=(examples tests/fixtures rules/tests) ;;
  esac
  for s in "${seeds[@]}"; do
    [ -e "$s" ] || continue
    find "$s" -type f \( -name '*.yaml' -o -name RECORD \) -size -64k -print0 |
      while IFS= read -r -d '' f; do cp "$f" "$work/$(echo "$f" | tr / _)"; done
  done
  # A crash is written to the checkout as NAME-crash-SHA1 (the target's name: several run at once).
  local rc=0
  "$target" -max_total_time="$seconds" -max_len=4096 -timeout=5 -print_final_stats=1 \
    -artifact_prefix="./$name-" "$work" >"$logs/$name.log" 2>&1 || rc=$?
  rm -rf "$work"
  return "$rc"
}
for target in build-fuzz/fuzz/fuzz_*; do
  [ -x "$target" ] || continue
  while [ "$(jobs -rp | wc -l)" -ge "$parallel" ]; do wait -n || true; done
  { rc=0; run_target "$target" || rc=$?; echo "$rc" >"$logs/$(basename "$target").rc"; } &
done
wait
failed=()
for rcfile in "$logs"/*.rc; do
  name=$(basename "$rcfile" .rc)
  echo "fuzz: $name for ${seconds}s"
  if [ "$(cat "$rcfile")" -eq 0 ]; then
    tail -n 4 "$logs/$name.log"
  else
    grep -E -A20 '==[0-9]+== ERROR|SUMMARY|Test unit written' "$logs/$name.log" | tail -n 40
    failed+=("$name")
  fi
done
if [ "${#failed[@]}" -gt 0 ]; then
  echo "fuzz: ${failed[*]} failed (the input that did it is in the checkout: NAME-crash-*)" >&2
  exit 1
fi
echo "fuzz: all targets ran without a crash"
