#!/usr/bin/env python3
"""Instructions per byte as one file doubles: super-linear work shows at once.

Writes a CuTe-shaped header (bench/gen_tree.py --single) with G, 2G, 4G, ... MMA atoms (two gate
findings each) and a Python file with as many capability checks (bench/gen_python_tree.py
--single), runs `archpatch audit --arch sm_120 --json --jobs 1 FILE` under callgrind (instruction
counts repeat exactly on a busy machine, unlike time), subtracts the count of the same audit of
an empty file of the same kind (start-up: libclang, rules/features.yaml), and prints instructions
per byte with the ratio to the step before. Linear work keeps that ratio near 1.00; work per gate
that grows with the file's size doubles it at every step.

usage: scaling_bench.py [--archpatch BIN] [--gates G] [--steps N] [--flags "--no-hazards"]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def instructions(binary, path, flags, work):
    """Total instructions callgrind counts for one audit of `path`."""
    out = os.path.join(work, "callgrind.out")
    cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", binary, "audit", "--arch", "sm_120",
           "--json", "--jobs", "1", *flags, path]
    done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False)
    if done.returncode not in (0, 1):  # 1: findings
        raise RuntimeError(f"audit of {path} failed ({done.returncode}): {done.stderr[-2000:]}")
    with open(out) as f:
        for line in f:
            m = re.match(r"(summary|totals): (\d+)", line)
            if m:
                return int(m.group(2))
    raise RuntimeError(f"no callgrind totals for {path}")


def generate(kind, path, gates):
    if kind == "cuda":
        script, args = "gen_tree.py", [path, "--single", "--dense-gates", str(gates)]
    else:
        script, args = "gen_python_tree.py", [path, "--single", "--checks", str(gates)]
    subprocess.run([sys.executable, os.path.join(HERE, script), *args], stdout=subprocess.DEVNULL, check=True)


def run(kind, binary, gates, steps, flags, work):
    ext = ".hpp" if kind == "cuda" else ".py"
    empty = os.path.join(work, "empty" + ext)
    open(empty, "w").close()
    base = instructions(binary, empty, flags, work)
    print(f"{kind}: archpatch audit --arch sm_120 --json --jobs 1 {' '.join(flags)} (start-up: {base / 1e6:.0f} M instructions)")
    print(f"  {'gates':>6} {'bytes':>10} {'instructions':>14} {'per byte':>9} {'ratio':>6}")
    previous = None
    for step in range(steps):
        g = gates << step
        path = os.path.join(work, f"scale{g}{ext}")
        generate(kind, path, g)
        size = os.path.getsize(path)
        ir = instructions(binary, path, flags, work) - base
        per_byte = ir / size
        ratio = f"{per_byte / previous:.2f}" if previous else "-"
        print(f"  {g:>6} {size:>10} {ir:>14} {per_byte:>9.0f} {ratio:>6}", flush=True)
        previous = per_byte


def main():
    # A binary copied out of the build tree still finds the features table.
    os.environ.setdefault("ARCHPATCH_DATA_DIR", os.path.join(HERE, ".."))  # holds rules/
    p = argparse.ArgumentParser()
    p.add_argument("--archpatch", default=os.path.join(HERE, "..", "build", "archpatch"))
    p.add_argument("--gates", type=int, default=50, help="atoms (CUDA) / checks (Python) in the first file")
    p.add_argument("--steps", type=int, default=4)
    p.add_argument("--flags", default="", help="more audit options, e.g. --no-hazards")
    p.add_argument("--kinds", default="cuda,python")
    args = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="archpatch-scaling-") as work:
        for kind in args.kinds.split(","):
            run(kind, args.archpatch, args.gates, args.steps, args.flags.split(), work)


if __name__ == "__main__":
    main()
