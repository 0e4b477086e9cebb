#!/usr/bin/env bash
# Checks the C++ sources: clang-format-19 (.clang-format) on every tracked .cc/.h, and
# clang-tidy-19 (.clang-tidy) on the library and tool sources under src/ (not the tests: gtest's
# macros are not ours to tidy). `--format` runs the first only (CTest's `format` test).
# Needs build/compile_commands.json for clang-tidy (scripts/bootstrap.sh configures build/).
set -euo pipefail
cd "$(dirname "$0")/.."
for tool in clang-format-19 clang-tidy-19; do
  command -v "$tool" >/dev/null || { echo "lint: $tool not found (apt-get install $tool; scripts/packages.txt)" >&2; exit 2; }
done
# Fixtures and examples are inputs whose bytes (lines, columns) the tests expect: never formatted.
mapfile -t sources < <(git ls-files '*.cc' '*.h' | grep -v -E '^(tests/fixtures|rules/tests|examples|eval/trees)/')
clang-format-19 --dry-run --Werror "${sources[@]}"
echo "lint: clang-format: ${#sources[@]} files formatted as .clang-format says"
[ "${1:-}" = --format ] && exit 0
[ -f build/compile_commands.json ] || { echo "lint: build/compile_commands.json missing (run scripts/bootstrap.sh)" >&2; exit 2; }
mapfile -t units < <(git ls-files 'src/*.cc' | grep -v '_test\.cc$')
printf '%s\n' "${units[@]}" | xargs -P "$(nproc)" -n 4 clang-tidy-19 -p build --quiet 2>/dev/null
echo "lint: clang-tidy: ${#units[@]} files clean under .clang-tidy"
