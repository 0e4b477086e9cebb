#!/usr/bin/env python3
"""Instructions per byte as one file doubles: super-linear work shows at once.

Writes a CuTe-shaped header (bench/gen_tree.py --single) with G, 2G, 4G, ... MMA atoms (two gate
findings each), a host launcher file with as many runtime checks (the token pass, a constant
from an included header) and a Python file with as many capability checks and predicates
with their calls (bench/gen_python_tree.py --single: the package model's work), runs `archpatch audit --arch sm_120 --json --jobs 1 FILE` under callgrind (instruction
counts repeat exactly on a busy machine, unlike time), subtracts the count of the same audit of
an empty file of the same kind (start-up: rules/features.yaml, the shipped rules), and prints instructions
per byte with the ratio to the step before. Linear work keeps that ratio near 1.00; work per gate
that grows with the file's size doubles it at every step.

usage: scaling_bench.py [--archpatch BIN] [--gates G] [--steps N] [--flags "--no-hazards"] [--kinds cuda,cpp,python]
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


# A host launcher file (FlashInfer csrc/, TensorRT-LLM runners): runtime checks read by the token
# pass (src/cuda/runtime_tokens.h), a named constant from an included header, a bound condition,
# and conditions that read no capability.
CPP_HEADER = "#pragma once\nconstexpr int32_t kSM_100 = 100;\nconstexpr int32_t kSM_103 = 103;\n"
CPP_LAUNCHER = """// launcher {i}: tile {n}, stages {m}; dispatch by problem size, then by device.
int launch_{i}(const at::Tensor& x, cudaDeviceProp* props, int sm, Runner& runner) {{
  if (x.size(0) > {n} && runner.tiles() < {m}) {{ return runner.split({n}); }}
  int acc = 0;
  for (int k = 0; k < {m}; ++k) {{ acc += k * {n} + runner.stride(k); }}
  TORCH_CHECK(sm == kSM_100 || sm == kSM_103, "launch_{i} needs SM100/SM103, got ", sm);
  if (props->major < 9) {{ throw std::runtime_error("launch_{i} needs Hopper or newer"); }}
  bool is_sm90 = props->major == 9;
  if (is_sm90 && x.size(1) > {m}) return -1;
  return runner.run(x, acc);
}}

"""


def generate_cpp(path, gates):
    with open(os.path.join(os.path.dirname(path), "consts.h"), "w") as f:
        f.write(CPP_HEADER)
    parts = ['#include "consts.h"\n#include <stdexcept>\n\nnamespace gen {\n\n']
    parts += [CPP_LAUNCHER.format(i=i, n=64 + i % 448, m=1 + i % 7) for i in range(gates)]
    parts.append("}  // namespace gen\n")
    with open(path, "w") as f:
        f.write("".join(parts))


def generate(kind, path, gates):
    if kind == "cpp":
        return generate_cpp(path, gates)
    if kind == "cuda":
        script, args = "gen_tree.py", [path, "--single", "--dense-gates", str(gates)]
    else:
        script, args = "gen_python_tree.py", [path, "--single", "--checks", str(gates)]
    subprocess.run([sys.executable, os.path.join(HERE, script), *args], stdout=subprocess.DEVNULL, check=True)


def run(kind, binary, gates, steps, flags, work):
    ext = {"cuda": ".hpp", "cpp": ".cu", "python": ".py"}[kind]
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
    p.add_argument("--kinds", default="cuda,cpp,python", help="cuda: CuTe-shaped header; cpp: host launchers with runtime checks; python: a module with checks and predicates")
    args = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="archpatch-scaling-") as work:
        for kind in args.kinds.split(","):
            run(kind, args.archpatch, args.gates, args.steps, args.flags.split(), work)


if __name__ == "__main__":
    main()
