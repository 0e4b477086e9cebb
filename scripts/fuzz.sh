#!/usr/bin/env bash
# Builds the libFuzzer targets with clang-19 into build-fuzz/ and runs each for a bounded time.
set -euo pipefail
cd "$(dirname "$0")/.."
# ccache (when installed) may reuse objects across clones of the tree.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD}
# With -g, ccache also hashes the folder the compiler runs in; a fresh clone elsewhere would
# rebuild everything (the debug info of a reused object names the first checkout's folder).
export CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}
# Eleven targets at 20 s each keep the fuzzing step of CI under about four minutes.
seconds=${FUZZ_SECONDS:-20}
CC=clang-19 CXX=clang++-19 cmake -S . -B build-fuzz -G Ninja -DARCHPATCH_FUZZ=ON \
  -DARCHPATCH_TESTS=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build-fuzz --target fuzzers
for target in build-fuzz/fuzz/fuzz_*; do
  [ -x "$target" ] || continue
  name=$(basename "$target")
  corpus=fuzz/corpus/${name#fuzz_}
  work=$(mktemp -d)
  [ -d "$corpus" ] && cp -r "$corpus"/. "$work"/
  # The scanners' test fixtures are seeds too (copied flat; they stay where the tests read them).
  fixtures=tests/fixtures/${name#fuzz_}
  [ -d "$fixtures" ] && find "$fixtures" -type f -size -64k -exec cp -t "$work" {} + 2>/dev/null || true
  # Input parsers: the project's own rules, caches table and RECORD files.
  seeds=()
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
  echo "fuzz: $name for ${seconds}s"
  "$target" -max_total_time="$seconds" -max_len=4096 -timeout=5 -print_final_stats=1 "$work" 2>&1 | tail -n 4
  rm -rf "$work"
done
echo "fuzz: all targets ran without a crash"
