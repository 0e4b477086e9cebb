#!/usr/bin/env bash
# CI: `cmake --install` into a DESTDIR, then the user's story (story.sh) from there and from a
# copy of the installed tree moved elsewhere, with no ARCHPATCH_* variable; the man page and the
# bash completion cover every command of `archpatch --help`.
#   tests/install/install_test.sh BUILD_DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "$1" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/archpatch-install.XXXXXX")
trap 'rm -rf "$work"' EXIT
failures=0
check() { if "$@"; then :; else echo "FAIL: $*"; failures=$((failures + 1)); fi; }

DESTDIR=$work/dest cmake --install "$build" --prefix /usr/local >"$work/install.log"
prefix=$work/dest/usr/local
for f in bin/archpatch share/archpatch/rules/features.yaml share/archpatch/rules/caches.yaml \
         share/doc/archpatch/README.md share/doc/archpatch/cli.md share/man/man1/archpatch.1 \
         share/bash-completion/completions/archpatch; do
  check test -s "$prefix/$f"
done
echo "== installed into DESTDIR=$work/dest, prefix /usr/local"
"$here/story.sh" "$prefix" || failures=$((failures + 1))

mkdir -p "$work/moved/somewhere"
cp -a "$prefix" "$work/moved/somewhere/archpatch"
rm -rf "$work/dest"
echo "== the installed tree copied elsewhere (the original removed)"
"$here/story.sh" "$work/moved/somewhere/archpatch" || failures=$((failures + 1))

echo "== man page and bash completion"
prefix=$work/moved/somewhere/archpatch
commands=$("$prefix/bin/archpatch" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }')
[[ -n $commands ]] || { echo "FAIL: no commands in --help"; failures=$((failures + 1)); }
for c in $commands; do
  grep -q "^\.B $c\b" "$prefix/share/man/man1/archpatch.1" || { echo "FAIL: the man page lacks '$c'"; failures=$((failures + 1)); }
done
if command -v groff >/dev/null; then
  check bash -c "groff -man -Tutf8 -ww -z '$prefix/share/man/man1/archpatch.1' 2>&1 | (! grep .)"
fi
# complete WORDS...: what bash completion offers for the last word (empty: the next word).
complete_words() {
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _archpatch; printf "%s\n" "${COMPREPLY[@]}"' \
    _ "$prefix/share/bash-completion/completions/archpatch" "$@"
}
got=$(complete_words "$prefix/bin/archpatch" "")
for c in $commands; do grep -qx "$c" <<<"$got" || { echo "FAIL: completion lacks command '$c'"; failures=$((failures + 1)); }; done
check grep -qx -- "--site-packages" <<<"$(complete_words "$prefix/bin/archpatch" apply --si)"
check grep -qx "flashinfer-trtllm-allreduce-sm12x" <<<"$(complete_words "$prefix/bin/archpatch" apply --rule flash)"
check grep -qx "sm_120" <<<"$(complete_words "$prefix/bin/archpatch" audit --arch sm_12)"
echo "== $([[ $failures == 0 ]] && echo PASS || echo "FAIL ($failures)")"
((failures == 0))
