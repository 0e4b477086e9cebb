#!/usr/bin/env bash
# The audit benchmark: archpatch beside `rg -c` and a per-file `unifdef` loop, in the same run
# (bench/tree_bench.py prints wall, CPU, peak RSS and the ratios to rg), on
#   1. a generated CUDA-library tree (bench/gen_tree.py: >= 3,000 files, >= 70 MB, with four
#      CuTe-shaped headers of ~2.3 MB and 700 gated atoms each: CUTLASS's density);
#   2. a generated Python tree (bench/gen_python_tree.py);
#   3. real trees, when given by path (obtained at run time, never committed), audited together:
#        ARCHPATCH_BENCH_FLASHINFER_OLD  FlashInfer before the SM12x fix (v0.6.16)
#        ARCHPATCH_BENCH_FLASHINFER      FlashInfer HEAD
#        ARCHPATCH_BENCH_CUTLASS         a CUTLASS checkout (its include/ is audited)
#      e.g. git clone https://github.com/flashinfer-ai/flashinfer && git -C flashinfer archive v0.6.16 ...
# and then the scaling benchmark (bench/scaling_bench.py: instructions per byte as a file doubles)
# unless BENCH_NO_SCALING=1 (it needs valgrind and takes minutes).
# usage: bench/audit_bench.sh [ARCHPATCH_BINARY] [TREE_DIR] [PYTHON_TREE_DIR]   (BENCH_RUNS=3)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
bin="${1:-$here/../build/archpatch}"
tree="${2:-/tmp/archpatch-bench-tree}"
py_tree="${3:-/tmp/archpatch-bench-pytree}"
runs="${BENCH_RUNS:-3}"
[ -x "$bin" ] || { echo "audit_bench: no archpatch binary at $bin" >&2; exit 2; }
if [ ! -d "$tree" ]; then python3 "$here/gen_tree.py" "$tree"; fi
if [ ! -d "$py_tree" ]; then python3 "$here/gen_python_tree.py" "$py_tree" >/dev/null; fi

python3 "$here/tree_bench.py" --archpatch "$bin" --runs "$runs" --label "generated CUDA" "$tree"
python3 "$here/tree_bench.py" --archpatch "$bin" --runs "$runs" --label "generated Python" --no-unifdef \
    --pattern 'capability|major_versions|sm_[0-9]' "$py_tree"

real=()
for var in ARCHPATCH_BENCH_FLASHINFER_OLD ARCHPATCH_BENCH_FLASHINFER ARCHPATCH_BENCH_CUTLASS; do
  dir="${!var:-}"
  if [ -z "$dir" ]; then
    echo "real trees: $var is not set: skipped (a path to the checkout; see the head of this script)"
    continue
  fi
  [ "$var" = ARCHPATCH_BENCH_CUTLASS ] && dir="$dir/include"
  [ -d "$dir" ] || { echo "audit_bench: $var: no directory $dir" >&2; exit 2; }
  real+=("$dir")
done
if [ ${#real[@]} -gt 0 ]; then
  python3 "$here/tree_bench.py" --archpatch "$bin" --runs "$runs" --label "real trees" --serial "${real[@]}"
fi

if [ "${BENCH_NO_SCALING:-0}" != 1 ]; then
  command -v valgrind >/dev/null || { echo "scaling: valgrind is not installed: skipped"; exit 0; }
  python3 "$here/scaling_bench.py" --archpatch "$bin"
fi
