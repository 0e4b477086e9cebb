#!/usr/bin/env bash
# Builds archpatch from scratch (scripts/bootstrap.sh), then everything else (the tests and
# tools), and runs every test: the CTest suite (unit, end-to-end, rules fixtures, the include-layer
# check scripts/check_layers.sh, install and packaging, nvcc/unifdef differential tests where nvcc
# is present), clang-tidy over src/ (scripts/lint.sh: .clang-tidy; the clang-format half is the
# CTest `format` test) and the bounded fuzz runs.
set -euo pipefail
cd "$(dirname "$0")/.."
# The same ccache settings as scripts/bootstrap.sh, for the builds this script runs itself.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD} CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}
scripts/bootstrap.sh
cmake --build build
ctest --test-dir build --output-on-failure -j"$(nproc)"
scripts/lint.sh
scripts/fuzz.sh
