#!/usr/bin/env python3
"""Times archpatch's audit of some trees beside `rg -c` and a per-file `unifdef` loop, in the same run.

For the trees together (one audit over all PATHs, as a user runs it) it prints, per tool: the best
wall and CPU seconds of --runs runs (warm page cache: one untimed run first), the peak RSS of the
best run, and the ratio of each to rg's. CPU seconds matter on a shared machine, where wall time
mostly measures the other jobs.

  archpatch          archpatch audit --arch sm_120 --json PATH...
  archpatch -H       the same with --no-hazards
  rg -c              rg -c __CUDA_ARCH PATH...  (finds the lines, understands nothing)
  unifdef loop       unifdef -s FILE, one process per C/C++ file (a preprocessor-aware reader)

With --serial, archpatch also runs on one thread (-j1) and the last line prints the CPU seconds of
the default run (one worker per core) over those of the serial one: the work added by running on
every core (waiting spun away, caches and memory shared, a slower clock with every core busy),
which wall figures on a many-core host include and this machine's may not show.

With --each, each PATH is also measured alone (archpatch and rg only): the ratio of trees
together is weighted by rg's bytes, and a tree of large files archpatch passes over cheaply
(CUTLASS's tests and tools) makes it look better than the source trees users audit alone.

usage: tree_bench.py [--archpatch BIN] [--runs N] [--label TEXT] [--no-unifdef] [--serial] [--each] PATH...
"""
import argparse
import os
import resource
import shutil
import subprocess
import sys
import time

CUDA_EXTENSIONS = (".cu", ".cuh", ".h", ".hpp", ".hh", ".cc", ".cpp", ".cxx", ".inl")  # scan::KindOf


def measure(cmd, runs, stdin=None, ok=(0, 1)):
    """(wall, cpu, peak RSS in bytes) of the run with the best wall time."""
    best = None
    for _ in range(runs):
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdin=subprocess.PIPE if stdin else None, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        if stdin:
            proc.stdin.write(stdin)
            proc.stdin.close()
        _, status, usage = os.wait4(proc.pid, 0)
        if ok and os.waitstatus_to_exitcode(status) not in ok:
            sys.exit(f"tree_bench: {' '.join(cmd[:6])} ... exited with {os.waitstatus_to_exitcode(status)}")
        wall = time.perf_counter() - start
        cpu = usage.ru_utime + usage.ru_stime
        rss = usage.ru_maxrss * 1024  # KiB on Linux; the largest of the process and its children
        if best is None or wall < best[0]:
            best = (wall, cpu, rss)
    return best


def tree_files(paths):
    files, size = [], 0
    for root in paths:
        for folder, dirs, names in os.walk(root):
            dirs[:] = [d for d in dirs if d not in (".git", "build", "__pycache__")]
            for n in names:
                p = os.path.join(folder, n)
                if os.path.isfile(p) and not os.path.islink(p):
                    size += os.path.getsize(p)
                    files.append(p)
    return files, size


def main():
    # A binary copied out of the build tree still finds the features table.
    os.environ.setdefault("ARCHPATCH_DATA_DIR", os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    ap = argparse.ArgumentParser()
    ap.add_argument("--archpatch", default=os.path.join(os.path.dirname(__file__), "..", "build", "archpatch"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--label", default="")
    ap.add_argument("--pattern", default="__CUDA_ARCH", help="what rg counts")
    ap.add_argument("--no-unifdef", action="store_true")
    ap.add_argument("--serial", action="store_true", help="also run archpatch on one thread (-j1)")
    ap.add_argument("--each", action="store_true", help="also measure each PATH alone")
    ap.add_argument("paths", nargs="+")
    args = ap.parse_args()
    if not shutil.which("rg"):
        sys.exit("tree_bench: rg (ripgrep) is needed for the comparison")
    bench(args.paths, args, args.label, unifdef=not args.no_unifdef, serial=args.serial)
    if args.each and len(args.paths) > 1:
        for path in args.paths:
            bench([path], args, "alone", unifdef=False, hazards=False)


def bench(paths, args, label, unifdef, hazards=True, serial=False):
    files, size = tree_files(paths)
    cuda = [f for f in files if f.endswith(CUDA_EXTENSIONS)]
    audit = [args.archpatch, "audit", "--arch", "sm_120", "--json"]
    tools = [("archpatch", audit + paths, None)]
    if hazards:
        tools.append(("archpatch -H", audit + ["--no-hazards"] + paths, None))
    if serial:
        tools.append(("archpatch -j1", audit + ["-j1"] + paths, None))
    tools.append((f"rg -c {args.pattern}", ["rg", "-c", args.pattern] + paths, None))
    if unifdef and shutil.which("unifdef"):
        listing = "".join(f + "\0" for f in cuda).encode()
        tools.append(("unifdef loop", ["xargs", "-0", "-n1", "unifdef", "-s"], listing))
    # archpatch: 0 or 1 (findings); rg: 0 or 1 (no match); unifdef's exit status says nothing here.
    check = lambda name: None if name == "unifdef loop" else (0, 1)
    for name, cmd, stdin in tools:  # warm the page cache
        measure(cmd, 1, stdin, check(name))
    results = [(name, measure(cmd, args.runs, stdin, check(name))) for name, cmd, stdin in tools]
    rg = next(r for name, r in results if name.startswith("rg"))
    label = f"{label}: " if label else ""
    print(f"{label}{len(files)} files ({len(cuda)} C/C++), {size / 1e6:.1f} MB: {' '.join(paths)}")
    print(f"  {'tool':<22} {'wall s':>8} {'CPU s':>8} {'RSS MB':>8} {'wall/rg':>8} {'CPU/rg':>8}")
    for name, (wall, cpu, rss) in results:
        print(f"  {name:<22} {wall:>8.3f} {cpu:>8.3f} {rss / 1e6:>8.1f} {wall / rg[0]:>8.1f} "
              f"{cpu / max(rg[1], 1e-3):>8.1f}")
    if serial:
        cpu = dict((name, r[1]) for name, r in results)
        print(f"  CPU on {os.cpu_count()} threads / on one: {cpu['archpatch'] / max(cpu['archpatch -j1'], 1e-3):.2f}")

if __name__ == "__main__":
    main()
