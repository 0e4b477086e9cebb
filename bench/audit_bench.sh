#!/usr/bin/env bash
# Times `archpatch audit --arch sm_120 --json TREE` beside `rg -c __CUDA_ARCH TREE` over a
# generated CUDA-library-shaped tree (>= 3,000 files, >= 70 MB), warm cache, best of 3.
# usage: bench/audit_bench.sh [ARCHPATCH_BINARY] [TREE_DIR]
# AUDIT_FLAGS adds audit options (e.g. AUDIT_FLAGS=--no-hazards); the CPU seconds (user+sys) of
# each tool are printed too, since wall time on a shared machine mostly measures the others.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
bin="${1:-$here/../build/archpatch}"
tree="${2:-/tmp/archpatch-bench-tree}"
if [ ! -d "$tree" ]; then python3 "$here/gen_tree.py" "$tree"; fi
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

"$bin" audit --arch sm_120 --json ${AUDIT_FLAGS:-} "$tree" >/dev/null 2>&1 || true  # warm the page cache
rg -c __CUDA_ARCH "$tree" >/dev/null || true
files=$(find "$tree" -type f | wc -l)
bytes=$(du -sb "$tree" | cut -f1)
t_audit=$(best_of_3 "$bin" audit --arch sm_120 --json ${AUDIT_FLAGS:-} "$tree")
t_rg=$(best_of_3 rg -c __CUDA_ARCH "$tree")
python3 - "$files" "$bytes" $t_audit $t_rg <<'PY'
import sys
files, size = int(sys.argv[1]), int(sys.argv[2])
audit, audit_cpu, rg, rg_cpu = map(float, sys.argv[3:7])
print(f"tree: {files} files, {size / 1e6:.1f} MB")
print(f"archpatch audit --arch sm_120 --json: {audit * 1000:.0f} ms wall, {audit_cpu * 1000:.0f} ms CPU")
print(f"rg -c __CUDA_ARCH:                    {rg * 1000:.0f} ms wall, {rg_cpu * 1000:.0f} ms CPU")
print(f"ratio audit/rg: {audit / rg:.2f}x wall")
PY
