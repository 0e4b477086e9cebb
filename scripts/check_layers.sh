#!/usr/bin/env bash
# Fails when a stage includes a header of a stage above it. The order is the one written in
# docs/architecture.md, on the line that starts with "Layer order:" (lowest first); a stage may
# include its own headers and those of the stages before it. Unit tests (*_test.cc) may reach up
# (a scanner's test reads the --json contract of src/report), the rest may not. A folder under
# src/ that the order does not name fails too, so a new stage has to be placed.
# usage: scripts/check_layers.sh [REPO_ROOT]
set -euo pipefail
root="${1:-$(dirname "$0")/..}"
cd "$root"

order_line=$(grep -m1 '^Layer order:' docs/architecture.md || true)
if [[ -z "$order_line" ]]; then
  echo "archpatch: error: docs/architecture.md: no line starting with 'Layer order:'" >&2
  exit 2
fi
# "Layer order: `util` → `arch` → ..." -> util arch ...
read -r -a order <<<"$(sed -e 's/^Layer order://' -e 's/[^a-z_ ]/ /g' <<<"$order_line")"
declare -A rank
for i in "${!order[@]}"; do rank[${order[$i]}]=$i; done

status=0
for dir in src/*/; do
  stage=$(basename "$dir")
  if [[ -z "${rank[$stage]+x}" ]]; then
    echo "docs/architecture.md: error: src/$stage is not in the layer order" >&2
    status=1
  fi
done

while IFS= read -r -d '' file; do
  stage=$(cut -d/ -f2 <<<"$file")
  [[ -n "${rank[$stage]+x}" ]] || continue
  while IFS=: read -r line included; do
    dep=${included%%/*}
    [[ -n "${rank[$dep]+x}" ]] || continue  # not a stage header (a third-party or system one)
    if (( rank[$dep] > rank[$stage] )); then
      echo "$file:$line: error: $stage includes \"$included\" of $dep, a stage above it (docs/architecture.md)" >&2
      status=1
    fi
  done < <(grep -n -o '^#include "[a-z_]*/[^"]*"' "$file" | sed 's/#include "\(.*\)"/\1/')
done < <(find src -name '*.h' -print0 -o -name '*.cc' ! -name '*_test.cc' -print0)

if (( status == 0 )); then echo "layers: every include follows the order (${order[*]})"; fi
exit $status
