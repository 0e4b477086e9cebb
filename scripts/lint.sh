#!/usr/bin/env bash
# Checks the C++ sources: clang-format-19 (.clang-format) on every tracked .cc/.h, and
# clang-tidy-19 (.clang-tidy) on the library and tool sources under src/ (not the tests: gtest's
# macros are not ours to tidy; scripts/lint_tidy.py, which skips files known clean). `--format`
# runs the first only (CTest's `format` test).
# Needs build/compile_commands.json for clang-tidy (scripts/bootstrap.sh configures build/).
set -euo pipefail
cd "$(dirname "$0")/.."
# A missing tool exits 77 (CTest's skip code for the `format` test; scripts/test.sh fails on it).
tools=(clang-format-19)
[ "${1:-}" = --format ] || tools+=(clang-tidy-19)
for tool in "${tools[@]}"; do
  command -v "$tool" >/dev/null || { echo "lint: $tool not found (apt-get install $tool; scripts/packages.txt)" >&2; exit 77; }
done
# Fixtures and examples are inputs whose bytes (lines, columns) the tests expect: never formatted.
# Tracked files in a git checkout; every file under the source folders otherwise (a tarball).
list() {
  if git rev-parse --git-dir >/dev/null 2>&1; then git ls-files "$@"; else
    find src tests fuzz bench tools -type f 2>/dev/null | while read -r f; do
      for p in "$@"; do [[ $f == $p ]] && { echo "$f"; break; }; done
    done | sort
  fi
}
mapfile -t sources < <(list '*.cc' '*.h' | grep -v -E '^(tests/fixtures|rules/tests|examples|eval/trees)/')
clang-format-19 --dry-run --Werror "${sources[@]}"
echo "lint: clang-format: ${#sources[@]} files formatted as .clang-format says"
[ "${1:-}" = --format ] && exit 0
[ -f build/compile_commands.json ] || { echo "lint: build/compile_commands.json missing (run scripts/bootstrap.sh)" >&2; exit 2; }
mapfile -t units < <(list 'src/*.cc' | grep -v '_test\.cc$')
scripts/lint_tidy.py build "${units[@]}"
