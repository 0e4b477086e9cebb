#!/usr/bin/env python3
"""clang-tidy-19 over the library and tool sources of src/ (not the tests), with a cache.

usage: scripts/lint_tidy.py BUILD_DIR FILE...

Each file is checked as its compile command in BUILD_DIR/compile_commands.json builds it. A file
found clean is remembered under a key made of what clang-tidy reads: the translation unit as the
preprocessor expands it (every header included), .clang-tidy and the tool's version. A later run
with the same key skips it, as ccache skips a compile; anything that changes (a header, a check,
the tool) changes the key. A whole run is about 8 minutes of two cores; a warm one, the
preprocessing alone (about 30 s). The cache is ARCHPATCH_LINT_CACHE, else
$XDG_CACHE_HOME/archpatch-lint, else ~/.cache/archpatch-lint; only clean results are kept, so a
warning is printed again on every run until it is fixed.
"""
import concurrent.futures
import hashlib
import json
import os
import shlex
import subprocess
import sys

TIDY = "clang-tidy-19"


def preprocess_command(entry):
    """The compile command with -E instead of -c/-o: the bytes the compiler would see."""
    args = entry["arguments"] if "arguments" in entry else shlex.split(entry["command"])
    out, skip = [], False
    for a in args:
        if skip:
            skip = False
            continue
        if a == "-o":
            skip = True
            continue
        if a == "-c" or a.startswith("-o"):
            continue
        out.append(a)
    # -P: no line markers, so the key does not hold the checkout's path (CI checks a fresh clone
    # of the same sources); the compile command's own -I paths are not part of the output.
    return out + ["-E", "-P"]


def key_of(entry, salt):
    pre = subprocess.run(preprocess_command(entry), cwd=entry["directory"], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, check=False)
    if pre.returncode != 0:
        return None  # let clang-tidy say what is wrong
    return hashlib.sha256(salt + pre.stdout).hexdigest()


def check(build, entry, salt, cache):
    source = entry["file"]
    key = key_of(entry, salt)
    if key and os.path.exists(os.path.join(cache, key)):
        return source, True, "", True
    run = subprocess.run([TIDY, "-p", build, "--quiet", source], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True, check=False)
    clean = run.returncode == 0 and "warning:" not in run.stdout and "error:" not in run.stdout
    if clean and key:
        with open(os.path.join(cache, key), "w", encoding="utf-8") as f:
            f.write(source + "\n")
    return source, clean, run.stdout, False


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: lint_tidy.py BUILD_DIR FILE...")
    build, files = sys.argv[1], sys.argv[2:]
    with open(os.path.join(build, "compile_commands.json"), encoding="utf-8") as f:
        commands = {os.path.realpath(e["file"]): e for e in json.load(f)}
    root = os.getcwd()
    cache = os.environ.get("ARCHPATCH_LINT_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "archpatch-lint")
    os.makedirs(cache, exist_ok=True)
    version = subprocess.run([TIDY, "--version"], stdout=subprocess.PIPE, check=True).stdout
    with open(os.path.join(root, ".clang-tidy"), "rb") as f:
        salt = version + f.read() + b"\0"
    entries = []
    for name in files:
        entry = commands.get(os.path.realpath(os.path.join(root, name)))
        if entry is None:
            sys.exit(f"lint: {name} is not in {build}/compile_commands.json (reconfigure the build)")
        entries.append(entry)
    failed, cached = [], 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        for source, clean, output, hit in pool.map(lambda e: check(build, e, salt, cache), entries):
            cached += hit
            if not clean:
                failed.append(source)
                sys.stdout.write(output)
    if failed:
        print(f"lint: clang-tidy: {len(failed)} of {len(entries)} files have warnings:", *failed, sep="\n  ")
        sys.exit(1)
    print(f"lint: clang-tidy: {len(entries)} files clean under .clang-tidy ({cached} known clean from {cache})")


if __name__ == "__main__":
    main()
