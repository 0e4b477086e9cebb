#!/usr/bin/env python3
"""Compare archpatch's binary reader with cuobjdump on installed GPU libraries.

For every shared object (and cubin) under the installed torch, triton, cupy and jax packages,
the SASS and PTX lists that `archpatch audit --binaries-only --json` (or archpatch-binscan, the
same library without libclang) reports must equal what `cuobjdump --list-elf --list-ptx` lists.

  python3 tests/gpu/binary_compare.py --scanner 'build-binary/device/archpatch-binscan' \
      [--packages torch,triton,cupy,jax] [--extra DIR] [--log OUT/binary_compare.log] [--budget 300]

Prints one line per mismatch and a summary (files compared, agreement). Exit 0 when every file
agrees, 1 on a mismatch, 2 when nothing could be compared.
"""
import argparse
import concurrent.futures
import importlib.util
import json
import os
import re
import shlex
import subprocess
import sys
import time

# cuobjdump names images "<file>.<n>.sm_90a.cubin" and "<file>.<n>.sm_90a.ptx".
IMAGE_NAME = re.compile(r"^(ELF|PTX) file\s+\d+: .*?\.(sm_\d+[af]?)\.(cubin|ptx)\s*$")
PACKAGE_MODULES = {
    "torch": ["torch"],
    "triton": ["triton"],
    "cupy": ["cupy", "cupy_backends", "cupyx"],
    "jax": ["jax", "jaxlib", "jax_plugins"],
}


def package_dirs(names):
    dirs = []
    for name in names:
        for module in PACKAGE_MODULES.get(name, [name]):
            spec = importlib.util.find_spec(module)
            if spec and spec.submodule_search_locations:
                dirs.extend(spec.submodule_search_locations)
    return sorted(set(dirs))


def run_scanner(scanner, dirs, arch):
    cmd = shlex.split(scanner) + ["--arch", arch, "--json"] + dirs
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode not in (0, 1):
        sys.exit(f"binary_compare: scanner failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return json.loads(proc.stdout)["binaries"]


def cuobjdump_lists(path, timeout):
    """(sass set, ptx set, elf count, ptx count), or None when cuobjdump timed out."""
    try:
        proc = subprocess.run(["cuobjdump", "--list-elf", "--list-ptx", path],
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    sass, ptx, n_elf, n_ptx = set(), set(), 0, 0
    for line in proc.stdout.splitlines():
        m = IMAGE_NAME.match(line.strip())
        if not m:
            continue
        if m.group(1) == "ELF":
            sass.add(m.group(2))
            n_elf += 1
        else:
            ptx.add(m.group(2).replace("sm_", "compute_"))
            n_ptx += 1
    return sass, ptx, n_elf, n_ptx


def plain_sass(names):
    """cuobjdump names family SASS without its suffix (an sm_120f cubin lists as sm_120: the
    machine code is the same as plain sm_120's); archpatch keeps the f. Compare without it."""
    return {n[:-1] if n.endswith("f") else n for n in names}


def cuobjdump_view(mine):
    """archpatch's lists as cuobjdump shows them by default: the executable fatbin's images, or
    the relocatable ones (__nv_relfatbin) when there is no executable fatbin; never the images
    archpatch found by searching .rodata (cuobjdump does not search)."""
    if not mine:
        return set(), set()
    embedded_sass, embedded_ptx = set(mine["embedded_sass"]), set(mine["embedded_ptx"])
    sass, ptx = set(mine["sass"]) - embedded_sass, set(mine["ptx"]) - embedded_ptx
    if not sass and not ptx:
        sass, ptx = set(mine["relocatable_sass"]), set(mine["relocatable_ptx"])
    return plain_sass(sass), ptx


def candidates(dirs):
    out = []
    for d in dirs:
        for root, _, files in os.walk(d):
            for f in files:
                if re.search(r"\.so(\.[0-9.]+)?$|\.cubin$|\.fatbin$", f):
                    out.append(os.path.join(root, f))
    return sorted(set(out))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--scanner", default="archpatch audit --binaries-only")
    ap.add_argument("--packages", default="torch,triton,cupy,jax")
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--extra", action="append", default=[],
                    help="another folder to compare (e.g. nvcc-built fixtures)")
    ap.add_argument("--log", default="")
    ap.add_argument("--budget", type=float, default=300, help="seconds for the cuobjdump pass")
    ap.add_argument("--timeout", type=float, default=120, help="seconds per cuobjdump call")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 4)
    args = ap.parse_args()
    log = open(args.log, "w") if args.log else None

    def say(line):
        print(line, flush=True)
        if log:
            log.write(line + "\n")

    dirs = package_dirs(args.packages.split(",")) + [os.path.abspath(d) for d in args.extra]
    say(f"packages: {args.packages}: {len(dirs)} folders: {' '.join(dirs)}")
    files = candidates(dirs)
    t0 = time.time()
    scan = run_scanner(args.scanner, dirs, args.arch)
    scan_s = time.time() - t0
    ours = {}
    for f in scan["files"]:
        # display paths are relative to the scanned folder; find which one holds the file
        for d in dirs:
            p = os.path.join(d, f["file"])
            if os.path.exists(p):
                ours[os.path.realpath(p)] = f
                break
    ex = scan["examined"]
    say(f"scanner: {len(scan['files'])} files with kernels of {ex['files']} examined, "
        f"{ex['bytes'] / 1e9:.2f} GB, read {ex['bytes_read'] / 1e9:.3f} GB, in {scan_s:.1f} s")

    deadline = time.time() + args.budget
    results = {}
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        # Files with kernels first: they are what the comparison is about.
        order = sorted(files, key=lambda p: os.path.realpath(p) not in ours)
        futures = {}
        for p in order:
            futures[pool.submit(lambda q: None if time.time() > deadline else cuobjdump_lists(q, args.timeout), p)] = p
        for fut in concurrent.futures.as_completed(futures):
            results[futures[fut]] = fut.result()

    compared = agree = count_agree = skipped = 0
    mismatches = []
    for p in files:
        theirs = results.get(p)
        if theirs is None:
            skipped += 1
            continue
        mine = ours.get(os.path.realpath(p))
        sass, ptx = cuobjdump_view(mine)
        compared += 1
        if (sass, ptx) == (plain_sass(theirs[0]), theirs[1]):
            agree += 1
        else:
            mismatches.append(p)
            say(f"MISMATCH {p}\n  archpatch sass={sorted(sass)} ptx={sorted(ptx)}\n"
                f"  cuobjdump sass={sorted(theirs[0])} ptx={sorted(theirs[1])}")
        n_images = mine["images"] if mine else 0
        count_agree += n_images == theirs[2] + theirs[3]
    with_kernels = sum(1 for p in files if results.get(p) and (results[p][0] or results[p][1]))
    say(f"compared {compared} files ({with_kernels} with kernels per cuobjdump), "
        f"{agree} agree on the SASS and PTX lists, {len(mismatches)} differ, "
        f"{skipped} skipped (cuobjdump timeout or budget)")
    say(f"image counts (archpatch entries vs cuobjdump ELF+PTX lines) equal on {count_agree} of {compared}")
    if compared == 0:
        return 2
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
