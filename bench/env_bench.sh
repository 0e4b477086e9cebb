#!/usr/bin/env bash
# Audit of a whole Python environment: wall, CPU and peak RSS of
#   ARCHPATCH audit --arch sm_120 --site-packages DIR --json
# run twice (the first run fills the page cache, the second is the warm figure), then with
# --no-binaries, beside `rg -c __CUDA_ARCH DIR`. Targets (issue 14): under 5 s warm, under 200 MB
# peak RSS on a 7.3 GB GPU environment (torch, triton, cupy, jax, nvidia-*).
# usage: bench/env_bench.sh ARCHPATCH SITE_PACKAGES
# Needs only bash and python3 (figures from wait4, no GNU time), so it runs on the GPU machine
# with the bundled binary of tests/gpu/bundle_archpatch.sh:
#   tests/gpu/bundle_archpatch.sh build/gpu                       (here; carry build/gpu)
#   mkdir -p /tmp/ap && tar -xJf build/gpu/archpatch.tar.xz -C /tmp/ap && \
#     bench/env_bench.sh "$(find /tmp/ap -path '*/bin/archpatch' | head -1)" \
#       "$(python3 -c 'import site; print(site.getsitepackages()[0])')"
set -euo pipefail
bin="${1:?usage: env_bench.sh ARCHPATCH SITE_PACKAGES}"
site="${2:?usage: env_bench.sh ARCHPATCH SITE_PACKAGES}"
[ -x "$bin" ] || { echo "env_bench: $bin is not an executable" >&2; exit 2; }
[ -d "$site" ] || { echo "env_bench: no directory $site" >&2; exit 2; }
command -v python3 >/dev/null || { echo "env_bench: python3 is needed" >&2; exit 2; }

echo "environment: $site ($(du -sh "$site" 2>/dev/null | cut -f1), $(find "$site" -type f | wc -l) files)"
echo "archpatch: $bin ($("$bin" --version 2>/dev/null | head -1))"
python3 - "$bin" "$site" <<'PY'
import os, subprocess, sys, time
bin, site = sys.argv[1], sys.argv[2]

# One run: "LABEL  wall s  CPU s  peak RSS MB"; archpatch exits 0, or 1 for findings.
def one(label, cmd, ok=(0, 1)):
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    rc = os.waitstatus_to_exitcode(status)
    if rc not in ok:
        sys.stderr.write(f"env_bench: {label} failed (exit {rc}):\n{err.decode(errors='replace')[-2000:]}\n")
        sys.exit(3)
    cpu = usage.ru_utime + usage.ru_stime
    print(f"{label:<34} wall {wall:7.2f} s   CPU {cpu:7.2f} s   peak RSS {usage.ru_maxrss / 1024:7.1f} MB", flush=True)
    return wall

audit = [bin, "audit", "--arch", "sm_120", "--site-packages", site, "--json"]
one("archpatch audit (first run)", audit)
warm = one("archpatch audit (warm)", audit)
one("archpatch audit --no-binaries", audit + ["--no-binaries"])
try:
    rg = one("rg -c __CUDA_ARCH", ["rg", "-c", "__CUDA_ARCH", site], ok=(0, 1, 2))  # 2: an unreadable file
    print(f"warm audit / rg wall: {warm / rg:.1f}x")
except FileNotFoundError:
    print("rg: not installed here (no ratio)")
PY
