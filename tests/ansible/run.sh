#!/usr/bin/env bash
# CI test of examples/ansible with Debian's ansible-core against localhost (connection: local):
# check mode reports changed and writes nothing, the first apply reports changed, the second
# reports no change, revert reports changed and restores the exact bytes (sha256 of every file of
# the tree), a second revert reports no change; once with the command module, once with archpatch
# as a binary module.
#   tests/ansible/run.sh            (ARCHPATCH=path/to/archpatch; exit 77 = skipped)
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
ARCHPATCH=${ARCHPATCH:-$repo/build/archpatch}
command -v ansible-playbook >/dev/null || { echo "ansible: SKIPPED: ansible-playbook not found"; exit 77; }
[[ -x "$ARCHPATCH" ]] || { echo "ansible: no archpatch binary at '$ARCHPATCH'" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/archpatch-ansible.XXXXXX")
trap 'rm -rf "$work"' EXIT
cp -R "$repo/examples/minipkg/site-packages" "$work/site-packages"
export HOME="$work/home" ANSIBLE_LOCAL_TEMP="$work/ansible-local" ANSIBLE_REMOTE_TEMP="$work/ansible-remote"
export ANSIBLE_NOCOLOR=1 ANSIBLE_RETRY_FILES_ENABLED=0 ANSIBLE_HOST_KEY_CHECKING=0 MINIFI_WORKSPACE_BASE="$work/home"
mkdir -p "$HOME"

tree_sums() { (cd "$work/site-packages" && find . -path ./.archpatch -prune -o -type f -print0 | sort -z | xargs -0 sha256sum); }
same_as_before() { tree_sums | diff -q "$work/sums.before" - >/dev/null; }
rules_var="{\"archpatch_rules\": [\"$repo/examples/minipkg/rules/minifi-allreduce.yaml\"]}"
failures=0
# playbook NAME EXPECTED_CHANGED [extra ansible-playbook args]: runs it, checks the recap.
playbook() {
  local name=$1 want=$2 rc=0
  shift 2
  ansible-playbook -i "$repo/examples/ansible/inventory.ini" "$repo/examples/ansible/$name" \
    -e "archpatch=$ARCHPATCH" -e "site_packages=$work/site-packages" "$@" >"$work/log" 2>&1 || rc=$?
  local recap
  recap=$(grep -E '^localhost +:' "$work/log" || true)
  echo "ansible-playbook $name ${*/#$repo\//}: ${recap:-no recap} (exit $rc)"
  if ((rc != 0)) || ! grep -Eq "changed=$want .*failed=0" <<<"$recap"; then
    echo "  EXPECTED changed=$want failed=0; log:"; sed 's/^/  | /' "$work/log"
    failures=$((failures + 1))
  fi
}
expect_tree() {  # expect_tree same|changed WHAT
  if same_as_before; then [[ $1 == same ]]; else [[ $1 == changed ]]; fi && return 0
  echo "  EXPECTED the tree $1 after $2"; failures=$((failures + 1))
}

tree_sums >"$work/sums.before"
echo "== archpatch through ansible.builtin.command (apply.yml, revert.yml)"
playbook apply.yml 1 -e "$rules_var" --check --diff   # check mode: would change, writes nothing
expect_tree same "apply --check"
playbook apply.yml 1 -e "$rules_var"
expect_tree changed "apply"
playbook apply.yml 0 -e "$rules_var"
playbook revert.yml 1
expect_tree same "revert"
playbook revert.yml 0

echo "== archpatch as an Ansible binary module (apply-module.yml)"
mkdir -p "$work/library"
cp "$ARCHPATCH" "$work/library/archpatch"
export ANSIBLE_LIBRARY="$work/library"
share=(-e "archpatch_data_dir=$repo")  # the module copy runs away from its tree: this source tree holds rules/
playbook apply-module.yml 1 -e "$rules_var" "${share[@]}" --check
expect_tree same "module --check"
playbook apply-module.yml 1 -e "$rules_var" "${share[@]}"
expect_tree changed "module apply"
playbook apply-module.yml 0 -e "$rules_var" "${share[@]}"
playbook apply-module.yml 1 -e archpatch_state=absent "${share[@]}"
expect_tree same "module revert"
playbook apply-module.yml 0 -e archpatch_state=absent "${share[@]}"

echo "sha256 of all $(wc -l <"$work/sums.before") files compared after each step"
if ((failures > 0)); then echo "ansible: FAIL ($failures)"; exit 1; fi
echo "ansible: PASS"
