#!/usr/bin/env bash
# Audit of a whole Python environment: wall, CPU and peak RSS (GNU time -v) of
#   archpatch audit --arch sm_120 --site-packages DIR --json
# run twice (the first run fills the page cache, the second is the warm figure), beside
# `rg -c __CUDA_ARCH DIR`. Targets (issue 14): under 5 s warm, under 200 MB peak RSS on a
# 7.3 GB GPU environment (torch, triton, cupy, jax, nvidia-*).
# usage: bench/env_bench.sh SITE_PACKAGES [ARCHPATCH]
# On the GPU machine (no libclang there): carry the bundle of tests/gpu/bundle_archpatch.sh,
#   tests/gpu/bundle_archpatch.sh /tmp/bundle build/archpatch     (here)
#   tar -xJf bundle/archpatch.tar.xz -C /tmp && \
#     bench/env_bench.sh "$(python3 -c 'import site; print(site.getsitepackages()[0])')" /tmp/archpatch-bundle/archpatch
set -euo pipefail
site="${1:?usage: env_bench.sh SITE_PACKAGES [ARCHPATCH]}"
bin="${2:-$(dirname "$0")/../build/archpatch}"
[ -d "$site" ] || { echo "env_bench: no directory $site" >&2; exit 2; }
# A binary outside the build tree (the bundle) still finds the features table of this checkout.
export ARCHPATCH_DATA_DIR="${ARCHPATCH_DATA_DIR:-$(cd "$(dirname "$0")/.." && pwd)}"  # holds rules/
[ -x /usr/bin/time ] || { echo "env_bench: GNU time (/usr/bin/time, Debian package 'time') is needed" >&2; exit 2; }

# one LABEL CMD...: prints "LABEL: wall s, CPU s, peak RSS MB" from GNU time -v.
one() {
  local label=$1 log
  shift
  log=$(mktemp)
  local rc=0
  /usr/bin/time -v "$@" >/dev/null 2>"$log" || rc=$?
  if [ "$rc" -gt 1 ]; then  # 0: clean, 1: findings; anything else is a failed run, not a figure
    echo "env_bench: $label failed (exit $rc):" >&2
    grep -v '^\s' "$log" | head -5 >&2
    rm -f "$log"
    exit 3
  fi
  python3 - "$label" "$log" <<'PY'
import re, sys
text = open(sys.argv[2]).read()
def field(name):
    m = re.search(re.escape(name) + r": (.+)", text)
    return m.group(1).strip() if m else "?"
wall = field("Elapsed (wall clock) time (h:mm:ss or m:ss)")
parts = [float(p) for p in wall.split(":")] if wall != "?" else [0.0]
seconds = sum(p * 60 ** i for i, p in enumerate(reversed(parts)))
cpu = float(field("User time (seconds)")) + float(field("System time (seconds)"))
rss = int(field("Maximum resident set size (kbytes)")) / 1024
print(f"{sys.argv[1]:<34} wall {seconds:7.2f} s   CPU {cpu:7.2f} s   peak RSS {rss:7.1f} MB")
PY
  rm -f "$log"
}

echo "environment: $site ($(du -sh "$site" | cut -f1), $(find "$site" -type f | wc -l) files)"
one "archpatch audit (first run)" "$bin" audit --arch sm_120 --site-packages "$site" --json
one "archpatch audit (warm)" "$bin" audit --arch sm_120 --site-packages "$site" --json
one "archpatch audit --no-binaries" "$bin" audit --arch sm_120 --site-packages "$site" --no-binaries --json
if command -v rg >/dev/null; then one "rg -c __CUDA_ARCH" rg -c __CUDA_ARCH "$site"; fi
