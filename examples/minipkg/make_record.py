#!/usr/bin/env python3
"""Writes (or with --check, verifies) the RECORD of every *.dist-info in a site-packages tree.

RECORD lists each installed file with its sha256 (urlsafe base64, no padding) and size, as pip
writes it (PEP 376/627). A distribution owns the top-level folders and modules named in its
top_level.txt, or else the package folder named like the distribution.

    examples/minipkg/make_record.py examples/minipkg/site-packages
    examples/minipkg/make_record.py --check rules/tests/*/before rules/tests/*/after
"""

import argparse
import base64
import csv
import hashlib
import io
import pathlib
import sys


def file_hash(path: pathlib.Path) -> str:
    digest = hashlib.sha256(path.read_bytes()).digest()
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def owned_roots(dist_info: pathlib.Path) -> list:
    top_level = dist_info / "top_level.txt"
    if top_level.exists():
        return [line.strip() for line in top_level.read_text().splitlines() if line.strip()]
    return [dist_info.name.split("-")[0]]


def owned_files(site: pathlib.Path, dist_info: pathlib.Path) -> list:
    files = []
    for root in owned_roots(dist_info) + [dist_info.name]:
        for candidate in (site / root, site / f"{root}.py"):
            if candidate.is_file():
                files.append(candidate)
            elif candidate.is_dir():
                files.extend(p for p in candidate.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    return sorted(set(files))


def render_record(site: pathlib.Path, dist_info: pathlib.Path) -> str:
    record = dist_info / "RECORD"
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    for path in owned_files(site, dist_info):
        rel = path.relative_to(site).as_posix()
        if path == record:
            continue
        writer.writerow([rel, file_hash(path), path.stat().st_size])
    writer.writerow([record.relative_to(site).as_posix(), "", ""])
    return out.getvalue()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="fail if a RECORD is out of date")
    parser.add_argument("sites", nargs="+", type=pathlib.Path)
    args = parser.parse_args()
    stale = 0
    for site in args.sites:
        for dist_info in sorted(site.glob("*.dist-info")):
            text = render_record(site, dist_info)
            record = dist_info / "RECORD"
            if args.check:
                if not record.exists() or record.read_text() != text:
                    print(f"make_record: stale: {record}", file=sys.stderr)
                    stale += 1
            else:
                record.write_text(text)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
