#!/usr/bin/env bash
# CI: scripts/package.sh (which checks glibc versions, lib/ and RUNPATH itself), then
#   the tarball unpacked in a fresh folder, and a copy of it elsewhere: the user's story (story.sh);
#   the .deb: control data (Depends) and file list (dpkg-deb -I/-c), unpacked into a scratch root
#     (dpkg -x) and the story from there;
#   examples/deploy.sh install from the tarball into a scratch prefix;
#   examples/Dockerfile's steps against a scratch root (dockerfile_test.sh).
#   tests/install/package_test.sh BUILD_DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
build=$(cd "$1" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/archpatch-package.XXXXXX")
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

BUILD_DIR=$build "$repo/scripts/package.sh" "$work/packages"
tarball=$(ls "$work"/packages/archpatch-*.tar.gz)
deb=$(ls "$work"/packages/archpatch_*.deb)

echo "== tarball unpacked in a fresh folder"
mkdir "$work/fresh"
tar -C "$work/fresh" -xzf "$tarball"
top=$(ls -d "$work"/fresh/archpatch-*)
"$here/story.sh" "$top" || fail "story from the unpacked tarball"
echo "== the unpacked tree copied elsewhere (the first one removed)"
mkdir -p "$work/elsewhere/x"
cp -a "$top" "$work/elsewhere/x/ap"
rm -rf "$work/fresh"
"$here/story.sh" "$work/elsewhere/x/ap" || fail "story from a copy of the tarball tree"

echo "== .deb: control and files"
dpkg-deb -I "$deb" >"$work/control"
grep -q '^ Package: archpatch$' "$work/control" || fail "control: no Package: archpatch"
grep -q '^ Depends: .*libclang1-19' "$work/control" || fail "control: Depends lacks libclang1-19"
sed -n 's/^ Depends: /Depends: /p' "$work/control"
dpkg-deb -c "$deb" | awk '{ print $6 }' >"$work/files"
for f in ./usr/bin/archpatch ./usr/share/archpatch/rules/features.yaml ./usr/share/archpatch/rules/caches.yaml \
         ./usr/share/doc/archpatch/README.md ./usr/share/man/man1/archpatch.1 \
         ./usr/share/bash-completion/completions/archpatch; do
  grep -qx "$f" "$work/files" || fail ".deb lacks $f"
done
if grep -v '^\./usr' "$work/files" | grep -qv '^\./$'; then fail ".deb installs outside /usr: $(grep -v '^\./usr' "$work/files")"; fi
echo "== .deb unpacked into a scratch root (dpkg -x)"
dpkg -x "$deb" "$work/debroot"
"$here/story.sh" "$work/debroot/usr" || fail "story from the unpacked .deb"

echo "== examples/deploy.sh install (tarball) into a scratch prefix"
ARCHPATCH_PREFIX=$work/opt/archpatch BIN_DIR=$work/bin "$repo/examples/deploy.sh" install "$tarball" || fail "deploy.sh install"
[[ -L $work/bin/archpatch ]] || fail "deploy.sh install made no $work/bin/archpatch link"
"$here/story.sh" "$work/opt/archpatch" || fail "story after deploy.sh install"

if command -v ansible-playbook >/dev/null; then
  echo "== examples/ansible/install.yml (tarball) against localhost, into a scratch prefix"
  export HOME=$work/home ANSIBLE_LOCAL_TEMP=$work/ansible-local ANSIBLE_REMOTE_TEMP=$work/ansible-remote ANSIBLE_NOCOLOR=1
  mkdir -p "$HOME"
  for run in first second; do
    rc=0
    ansible-playbook -i "$repo/examples/ansible/inventory.ini" "$repo/examples/ansible/install.yml" \
      -e "archpatch_package=$tarball" -e "archpatch_prefix=$work/fleet/opt/archpatch" \
      -e "archpatch_bin_dir=$work/fleet/bin" -e "archpatch_stage_dir=$work/fleet/stage" >"$work/ansible.log" 2>&1 || rc=$?
    recap=$(grep -E '^localhost +:' "$work/ansible.log" || true)
    echo "install.yml, $run run: $recap"
    want=$([[ $run == first ]] && echo 'changed=[1-9]' || echo 'changed=0')
    if ((rc != 0)) || ! grep -Eq "$want .*failed=0" <<<"$recap"; then
      fail "install.yml $run run"; sed 's/^/  | /' "$work/ansible.log"
    fi
  done
  "$here/story.sh" "$work/fleet/opt/archpatch" >/dev/null || fail "story after install.yml"
fi

echo "== examples/Dockerfile steps against a scratch root"
"$here/dockerfile_test.sh" "$tarball" || fail "Dockerfile steps"
echo "== $([[ $failures == 0 ]] && echo PASS || echo "FAIL ($failures)")"
((failures == 0))
