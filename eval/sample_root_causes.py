#!/usr/bin/env python3
"""Draws the random sample of reported root causes that eval/root_cause_sample.tsv labels.

    for t in cutlass flashinfer-v0.6.16 flashinfer-head flash-attention deepgemm; do
      build/archpatch audit --arch sm_120 --json /work/trees/$t > /tmp/audit-$t.json; done
    eval/sample_root_causes.py --seed 12 --n 60 /tmp/audit-*.json > sample.tsv

Only groups the human report lists by default (refusal, empty, fast-path, hardware-exclusive) are
drawn, one row each: tree, file, line, class, condition, places. Labels (real / not-real) and the
reason are filled in by hand after reading the code at file:line.
"""
import argparse
import json
import random

LISTED = {"refusal", "empty", "fast-path", "hardware-exclusive"}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=12)
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("docs", nargs="+")
    args = ap.parse_args()
    rows = []
    for path in args.docs:
        doc = json.load(open(path))
        for g in doc.get("groups", []):
            if g["class"] in LISTED:
                r = g["root"]
                rows.append((path, r["file"], r["line"], g["class"], " ".join(r["text"].split()), len(g["places"])))
    random.Random(args.seed).shuffle(rows)
    print("doc\tfile\tline\tclass\tcondition\tplaces")
    for row in rows[: args.n]:
        print("\t".join(str(x) for x in row))


if __name__ == "__main__":
    main()
