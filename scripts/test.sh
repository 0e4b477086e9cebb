#!/usr/bin/env bash
# Builds archpatch from scratch (scripts/bootstrap.sh) and runs every test: the CTest suite
# (unit, end-to-end, rules fixtures, nvcc/unifdef differential tests where nvcc is present) and
# the bounded fuzz runs.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
ctest --test-dir build --output-on-failure -j"$(nproc)"
scripts/fuzz.sh
