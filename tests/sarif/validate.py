#!/usr/bin/env python3
"""Validates a SARIF document (argv[1]) against tests/sarif/sarif-2.1.0-subset.schema.json with
python3-jsonschema, and checks what the schema cannot say: every result's ruleId names a rule of the
driver at ruleIndex, and relatedLocation ids are unique. Exit 0 valid, 1 invalid, 77 no jsonschema."""
import json
import pathlib
import sys

try:
    import jsonschema
except ImportError:
    print("python3-jsonschema is not installed", file=sys.stderr)
    sys.exit(77)

schema = json.loads((pathlib.Path(__file__).parent / "sarif-2.1.0-subset.schema.json").read_text())
doc = json.loads(pathlib.Path(sys.argv[1]).read_text())
try:
    jsonschema.validate(doc, schema)
except jsonschema.ValidationError as e:
    print(f"invalid SARIF: {e.message} at {list(e.absolute_path)}", file=sys.stderr)
    sys.exit(1)
for run in doc["runs"]:
    rules = run["tool"]["driver"].get("rules", [])
    for r in run.get("results") or []:
        if rules[r["ruleIndex"]]["id"] != r["ruleId"]:
            print(f"ruleIndex {r['ruleIndex']} is not rule {r['ruleId']}", file=sys.stderr)
            sys.exit(1)
        ids = [loc["id"] for loc in r.get("relatedLocations", [])]
        if len(ids) != len(set(ids)):
            print("relatedLocation ids repeat", file=sys.stderr)
            sys.exit(1)
print(f"valid SARIF 2.1.0: {sum(len(r.get('results') or []) for r in doc['runs'])} results")
