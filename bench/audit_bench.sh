#!/usr/bin/env bash
# Times `archpatch audit --arch sm_120 --json TREE` beside `rg -c __CUDA_ARCH TREE` over a
# generated CUDA-library-shaped tree (>= 3,000 files, >= 70 MB), warm cache, best of 3.
# A second tree of Python JIT-builder-shaped files (bench/gen_python_tree.py) is timed the same
# way beside `rg -c` for the capability words the Python scanner looks for.
# usage: bench/audit_bench.sh [ARCHPATCH_BINARY] [TREE_DIR] [PYTHON_TREE_DIR]
# AUDIT_FLAGS adds audit options (e.g. AUDIT_FLAGS=--no-hazards); the CPU seconds (user+sys) of
# each tool are printed too, since wall time on a shared machine mostly measures the others.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
bin="${1:-$here/../build/archpatch}"
tree="${2:-/tmp/archpatch-bench-tree}"
py_tree="${3:-/tmp/archpatch-bench-pytree}"
if [ ! -d "$tree" ]; then python3 "$here/gen_tree.py" "$tree"; fi
if [ ! -d "$py_tree" ]; then python3 "$here/gen_python_tree.py" "$py_tree" >/dev/null; fi
command -v rg >/dev/null || { echo "rg (ripgrep) is needed for the comparison" >&2; exit 2; }

best_of_3() {  # prints "wall cpu": the best wall and CPU seconds of three runs of "$@"
  python3 - "$@" <<'PY'
import os, subprocess, sys, time
best_wall = best_cpu = None
for _ in range(3):
    before = os.times()
    start = time.perf_counter()
    subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = os.times()
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    best_wall = wall if best_wall is None else min(best_wall, wall)
    best_cpu = cpu if best_cpu is None else min(best_cpu, cpu)
print(best_wall, best_cpu)
PY
}

# bench_one LABEL TREE RG_PATTERN: warm the cache, time both tools, print figures and the ratio.
bench_one() {
  local label=$1 dir=$2 pattern=$3
  "$bin" audit --arch sm_120 --json ${AUDIT_FLAGS:-} "$dir" >/dev/null 2>&1 || true  # warm the page cache
  rg -c "$pattern" "$dir" >/dev/null || true
  local files bytes t_audit t_rg
  files=$(find "$dir" -type f | wc -l)
  bytes=$(du -sb "$dir" | cut -f1)
  t_audit=$(best_of_3 "$bin" audit --arch sm_120 --json ${AUDIT_FLAGS:-} "$dir")
  t_rg=$(best_of_3 rg -c "$pattern" "$dir")
  python3 - "$label" "$pattern" "$files" "$bytes" $t_audit $t_rg <<'PY'
import sys
label, pattern = sys.argv[1], sys.argv[2]
files, size = int(sys.argv[3]), int(sys.argv[4])
audit, audit_cpu, rg, rg_cpu = map(float, sys.argv[5:9])
print(f"{label} tree: {files} files, {size / 1e6:.1f} MB")
print(f"  archpatch audit --arch sm_120 --json: {audit * 1000:.0f} ms wall, {audit_cpu * 1000:.0f} ms CPU")
print(f"  rg -c '{pattern}': {rg * 1000:.0f} ms wall, {rg_cpu * 1000:.0f} ms CPU")
print(f"  ratio audit/rg: {audit / rg:.2f}x wall, {audit_cpu / max(rg_cpu, 1e-3):.2f}x CPU")
PY
}

bench_one CUDA "$tree" __CUDA_ARCH
bench_one Python "$py_tree" 'capability|major_versions|sm_[0-9]'
