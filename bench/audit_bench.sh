#!/usr/bin/env bash
# Times `archpatch audit --arch sm_120 --json TREE` beside `rg -c __CUDA_ARCH TREE` over a
# generated CUDA-library-shaped tree (>= 3,000 files, >= 70 MB), warm cache, best of 3.
# usage: bench/audit_bench.sh [ARCHPATCH_BINARY] [TREE_DIR]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
bin="${1:-$here/../build/archpatch}"
tree="${2:-/tmp/archpatch-bench-tree}"
if [ ! -d "$tree" ]; then python3 "$here/gen_tree.py" "$tree"; fi
command -v rg >/dev/null || { echo "rg (ripgrep) is needed for the comparison" >&2; exit 2; }

best_of_3() {  # prints the best wall time in seconds of three runs of "$@"
  local best=""
  for _ in 1 2 3; do
    local start end
    start=$(date +%s.%N)
    "$@" >/dev/null 2>&1 || true
    end=$(date +%s.%N)
    best=$(python3 -c "t=$end-$start; b='$best'; print(t if b=='' else min(t, float(b)))")
  done
  echo "$best"
}

"$bin" audit --arch sm_120 --json "$tree" >/dev/null 2>&1 || true  # warm the page cache
rg -c __CUDA_ARCH "$tree" >/dev/null || true
files=$(find "$tree" -type f | wc -l)
bytes=$(du -sb "$tree" | cut -f1)
t_audit=$(best_of_3 "$bin" audit --arch sm_120 --json "$tree")
t_rg=$(best_of_3 rg -c __CUDA_ARCH "$tree")
python3 - "$files" "$bytes" "$t_audit" "$t_rg" <<'PY'
import sys
files, size, audit, rg = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
print(f"tree: {files} files, {size / 1e6:.1f} MB")
print(f"archpatch audit --arch sm_120 --json: {audit * 1000:.0f} ms")
print(f"rg -c __CUDA_ARCH:                    {rg * 1000:.0f} ms")
print(f"ratio audit/rg: {audit / rg:.2f}x")
PY
