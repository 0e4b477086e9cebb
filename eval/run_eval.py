#!/usr/bin/env python3
"""Recall and precision of `archpatch audit` on real trees, against eval/expectations.tsv.

Each expectation is a place in a real source tree where a user on SM120/SM121 hit a gate (kind
`gate`, with the verdict the code gives on sm_120 and sm_121 and the public issue it came from),
or a place that must not be reported (kind `must-not`: fallbacks, non-gates, refusals that admit
the target). Trees come from environment variables (FLASHINFER_V0616, FLASHINFER_HEAD,
FLASHINFER_V040, CUTLASS, FLASH_ATTENTION, DEEPGEMM); a tree whose variable is unset is skipped
and said so. Trees named by a path (eval/trees/...) are minimal reconstructions written for this
evaluation (vLLM, SGLang, TensorRT-LLM, which are not fetched) and always run.

Usage: eval/run_eval.py [--archpatch BIN] [--only TREE,...] [--reconstructions-only | --real-trees-only]
Exit: 0 every evaluated tree meets the bar (recall >= 90% per arch, no must-not reported),
1 it does not, 2 bad input, 77 nothing could be evaluated (every tree skipped).
"""
import argparse
import csv
import json
import os
import subprocess
import sys
import time
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
ARCHES = ("sm_120", "sm_121")
RECALL_BAR = 0.9


def load_expectations(path):
    with open(path, newline="") as f:
        rows = [r for r in csv.DictReader((l for l in f if not l.startswith("#")), delimiter="\t")]
    for n, r in enumerate(rows, start=2):
        if r["kind"] not in ("gate", "must-not"):
            sys.exit(f"run_eval: error: {path}: row {n}: kind must be gate or must-not, not {r['kind']!r}")
        for a in ARCHES:
            if r[a] not in ("refused", "admitted"):
                sys.exit(f"run_eval: error: {path}: row {n}: {a} must be refused or admitted")
        r["line"] = int(r["line"])
    return rows


def tree_root(tree):
    if "/" in tree:  # a reconstruction under the repository
        return os.path.join(REPO, tree), None
    value = os.environ.get(tree)
    return (value, None) if value else (None, f"{tree} is not set")


def audit(binary, root, paths, arch):
    cmd = [binary, "audit", "--arch", arch, "--no-hazards", "--json"] + [os.path.join(root, p) for p in paths]
    start = time.monotonic()
    out = subprocess.run(cmd, capture_output=True, text=True)
    seconds = time.monotonic() - start
    if out.returncode not in (0, 1):
        sys.exit(f"run_eval: error: {' '.join(cmd)} exited {out.returncode}: {out.stderr.strip()}")
    doc = json.loads(out.stdout)
    places = set()
    for f in doc["findings"]:
        places.add((os.path.relpath(os.path.abspath(f["file"]), os.path.abspath(root)), f["line"]))
    return places, seconds


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--archpatch", default=os.environ.get("ARCHPATCH", os.path.join(REPO, "build", "archpatch")))
    p.add_argument("--expectations", default=os.path.join(HERE, "expectations.tsv"))
    p.add_argument("--only", default="", help="comma-separated tree names")
    p.add_argument("--reconstructions-only", action="store_true")
    p.add_argument("--real-trees-only", action="store_true")
    args = p.parse_args()
    rows = load_expectations(args.expectations)
    only = set(filter(None, args.only.split(",")))
    by_tree = defaultdict(list)
    for r in rows:
        if only and r["tree"] not in only:
            continue
        if args.reconstructions_only and "/" not in r["tree"]:
            continue
        if args.real_trees_only and "/" in r["tree"]:
            continue
        by_tree[r["tree"]].append(r)

    totals = {a: {"tp": 0, "fn": 0, "fp": 0} for a in ARCHES}
    must_not_hits, misses, evaluated = [], [], 0
    for tree, entries in sorted(by_tree.items()):
        root, why = tree_root(tree)
        if root is None:
            print(f"skip: {tree}: {why} ({len(entries)} expectations not evaluated)")
            continue
        if not os.path.isdir(root):
            sys.exit(f"run_eval: error: {tree}: {root} is not a directory")
        evaluated += 1
        paths = sorted({e["file"].split("/")[0] for e in entries})
        for arch in ARCHES:
            reported, seconds = audit(args.archpatch, root, paths, arch)
            print(f"ran: {tree} --arch {arch}: {len(reported)} places reported in {seconds:.1f}s")
            for e in entries:
                hit = (e["file"], e["line"]) in reported
                refused = e["kind"] == "gate" and e[arch] == "refused"
                t = totals[arch]
                if refused and hit:
                    t["tp"] += 1
                elif refused:
                    t["fn"] += 1
                    misses.append(f"{arch}: missed {tree}:{e['file']}:{e['line']} ({e['source']})")
                elif hit:
                    t["fp"] += 1
                    if e["kind"] == "must-not":
                        must_not_hits.append(f"{arch}: must-not reported {tree}:{e['file']}:{e['line']} ({e['source']})")
                    else:
                        misses.append(f"{arch}: reported though admitted {tree}:{e['file']}:{e['line']}")
    if evaluated == 0:
        print("skip: no tree could be evaluated (set the tree variables, see eval/README.md)")
        return 77
    for line in misses + must_not_hits:
        print(line)
    ok = not must_not_hits
    for arch in ARCHES:
        t = totals[arch]
        expected = t["tp"] + t["fn"]
        recall = t["tp"] / expected if expected else 1.0
        precision = t["tp"] / (t["tp"] + t["fp"]) if t["tp"] + t["fp"] else 1.0
        ok &= recall >= RECALL_BAR
        print(f"{arch}: recall {t['tp']}/{expected} = {recall:.1%}, precision {t['tp']}/{t['tp'] + t['fp']} = {precision:.1%}")
    print(f"must-not reported: {len(must_not_hits)}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
